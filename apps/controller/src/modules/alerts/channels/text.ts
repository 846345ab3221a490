import type { AlertEvidence, AlertKind, AlertLocale, AlertMessage } from "./types.js";

/** A message in words: a title (subject, card header) and body lines, plain text. */
export interface AlertText {
  title: string;
  lines: string[];
}

interface Phrases {
  title: Record<AlertKind, string>;
  /** The first body line: `{m}` is the monitor as `name (type target)`, `{t}` the time. */
  lead: Record<AlertKind, string>;
  monitor: (name: string, what: string) => string;
  error: string;
  nodes: string;
  more: (n: number) => string;
  separator: string;
  dashboard: string;
  /** Before the failing nodes' mtr (or traceroute) and DNS summary, and before the event's link. */
  evidence: string;
  details: string;
  /** Before the signed acknowledgement link. */
  ack: string;
}

const phrases: Record<AlertLocale, Phrases> = {
  en: {
    title: {
      down: "DOWN: {name}",
      up: "UP: {name}",
      reminder: "STILL DOWN: {name}",
      test: "Vantage test alert",
      monitor_stale: "NO DATA: {name}",
    },
    lead: {
      down: "{m} is down since {t}.",
      up: "{m} is up again since {t}.",
      reminder: "{m} is still down as of {t}.",
      test: "This is a test message from Vantage: the channel works. Sent {t}.",
      monitor_stale: "{m} has had no completed run since {t}: its state is unknown.",
    },
    monitor: (name, what) => `${name} (${what})`,
    error: "Error: ",
    nodes: "Failing nodes: ",
    more: (n) => `+${n} more`,
    separator: ", ",
    dashboard: "Dashboard: ",
    evidence: "Evidence: ",
    details: "Details and full evidence: ",
    ack: "Acknowledge (stops escalation and reminders): ",
  },
  cn: {
    title: {
      down: "故障：{name}",
      up: "恢复：{name}",
      reminder: "仍未恢复：{name}",
      test: "Vantage 测试告警",
      monitor_stale: "无数据：{name}",
    },
    lead: {
      down: "{m}自 {t} 起不可用。",
      up: "{m}已于 {t} 恢复。",
      reminder: "{m}截至 {t} 仍不可用。",
      test: "这是一条来自 Vantage 的测试消息，收到即表示通道可用。发送时间：{t}。",
      monitor_stale: "{m}自 {t} 起没有完成的检测，状态未知。",
    },
    monitor: (name, what) => `${name}（${what}）`,
    error: "错误：",
    nodes: "失败节点：",
    more: (n) => `等另外 ${n} 个`,
    separator: "、",
    dashboard: "控制台：",
    evidence: "诊断证据：",
    details: "详情与完整证据：",
    ack: "确认告警（停止升级和提醒）：",
  },
  tw: {
    title: {
      down: "故障：{name}",
      up: "恢復：{name}",
      reminder: "仍未恢復：{name}",
      test: "Vantage 測試告警",
      monitor_stale: "無資料：{name}",
    },
    lead: {
      down: "{m}自 {t} 起無法使用。",
      up: "{m}已於 {t} 恢復。",
      reminder: "{m}截至 {t} 仍無法使用。",
      test: "這是一則來自 Vantage 的測試訊息，收到即表示通道可用。傳送時間：{t}。",
      monitor_stale: "{m}自 {t} 起沒有完成的檢測，狀態未知。",
    },
    monitor: (name, what) => `${name}（${what}）`,
    error: "錯誤：",
    nodes: "失敗節點：",
    more: (n) => `等另外 ${n} 個`,
    separator: "、",
    dashboard: "控制台：",
    evidence: "診斷證據：",
    details: "詳情與完整證據：",
    ack: "確認告警（停止升級和提醒）：",
  },
};

/** Failing nodes named in a message; the rest are counted (a message stays short, an SMS fits). */
const MAX_NODES_NAMED = 10;

/** The message in its locale: what happened to which monitor when, the error and the failing nodes. */
export function alertText(message: AlertMessage): AlertText {
  const p = phrases[message.locale];
  const monitor = message.monitor;
  const name = monitor?.name ?? "";
  const m = monitor ? p.monitor(monitor.name, `${monitor.type} ${monitor.target}`) : "";
  const lines = [fill(p.lead[message.kind], { m, t: utcTime(message.occurred_at) })];
  if (message.error) lines.push(p.error + message.error);
  const nodes = message.nodes ?? [];
  if (nodes.length > 0) {
    const named = nodes.slice(0, MAX_NODES_NAMED).map((n) => `${n.node_id} (${n.error_code ?? "-"})`);
    if (nodes.length > MAX_NODES_NAMED) named.push(p.more(nodes.length - MAX_NODES_NAMED));
    lines.push(p.nodes + named.join(p.separator));
  }
  for (const e of (message.evidence ?? []).slice(0, 3)) lines.push(p.evidence + evidenceLine(e));
  if (message.event_url) lines.push(p.details + message.event_url);
  if (message.dashboard_url) lines.push(p.dashboard + message.dashboard_url);
  if (message.ack_url) lines.push(p.ack + message.ack_url);
  return { title: fill(p.title[message.kind], { name }), lines };
}

/**
 * One failing node's evidence in a line: `fra-1: mtr 203.0.113.7, 9 hops, last 198.51.100.1 40% loss (not
 * reached); DNS 203.0.113.7` (`traceroute …` from a node without mtr; an error code where a probe failed).
 */
export function evidenceLine(e: AlertEvidence): string {
  const name = e.mtr ? "mtr" : "traceroute";
  const t = e.mtr ?? e.traceroute;
  let route = `${name} ${e.host}: ${t?.error?.code ?? "failed"}`;
  const hops = t?.detail?.hops;
  if (t?.success && Array.isArray(hops)) {
    const last = [...hops].reverse().find((h: { ip?: unknown }) => typeof h.ip === "string") as
      | { ip: string; loss_pct?: unknown }
      | undefined;
    const loss = typeof last?.loss_pct === "number" && last.loss_pct > 0 ? ` ${last.loss_pct}% loss` : "";
    route = `${name} ${e.host}, ${hops.length} hop${hops.length === 1 ? "" : "s"}, last ${last?.ip ?? "*"}${loss}${t.detail?.reached === false ? " (not reached)" : ""}`;
  }
  if (!e.dns) return `${e.node_id}: ${route}`;
  const answers = e.dns.detail?.answers;
  const dns =
    e.dns.success && Array.isArray(answers)
      ? answers.length > 0
        ? answers.map((a: { value?: unknown }) => String(a.value)).join(" ")
        : String(e.dns.detail?.rcode ?? "no answer")
      : (e.dns.error?.code ?? "failed");
  return `${e.node_id}: ${route}; DNS ${dns}`;
}

/** Puts values in for `{key}`s, as they are (`String.replace` would read `$&` in a name). */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** `2026-07-01 12:34:56 UTC`; a string that is not a date is shown as it is. */
export function utcTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Cuts `text` to at most `max` characters (code points), ending with `…` when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** Cuts `text` to at most `max` bytes of UTF-8, on a character boundary, ending with `…` when cut. */
export function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = "";
  let size = Buffer.byteLength("…");
  for (const char of text) {
    size += Buffer.byteLength(char);
    if (size > max) break;
    out += char;
  }
  return `${out}…`;
}
