import { runErrorText } from "../error-messages.js";
import { formatNumber, formatTime, messages } from "../i18n.js";
import { StatusDot } from "../ui.js";
import type { DirectoryNode, ProbeType, ResultEntry, TaskNode } from "./api-types.js";
import { countryLabel, ms } from "./place.js";
import { probeName } from "./probe-names.js";
import { ResultDetails } from "./probe-result-details.js";
import type { LiveTask } from "./use-live-task.js";

const t = messages({
  en: {
    results: "Results",
    starting: "Starting…",
    running: "Running",
    queued: "Queued",
    done: "Done",
    failed: "Failed",
    answered: "Nodes answered: {n} of {total}",
    pending: "Waiting for the node…",
    success: "Success",
    failure: "Failed",
    details: "Details",
    sent: "Sent {n}",
    received: "received {n}",
    loss: "Loss {n} %",
    rtt: "RTT min/avg/max {min} / {avg} / {max}",
    status: "HTTP {code}",
    noStatus: "no HTTP answer",
    total: "total {v}",
    firstByte: "first byte {v}",
    keywordFound: "keyword found",
    keywordMissing: "keyword not found",
    redirects: "redirects: {n}",
    answers: "answers: {n}",
    via: "via {resolver} ({protocol})",
    connected: "Connected in {v}",
    to: "to {addr}",
    reached: "Reached at hop {n}",
    notReached: "Not reached (last hop {n})",
    lossAtEnd: "{v}% loss at the last hop over {r} rounds",
    address: "Address {ip}",
    target: "Target",
    created: "Started {time}",
    finished: "Finished {time}",
    noNodes: "No node has answered yet.",
  },
  cn: {
    results: "结果",
    starting: "正在开始…",
    running: "运行中",
    queued: "排队中",
    done: "已完成",
    failed: "失败",
    answered: "{total} 个节点中已有 {n} 个回应",
    pending: "等待节点…",
    success: "成功",
    failure: "失败",
    details: "详情",
    sent: "发送 {n}",
    received: "接收 {n}",
    loss: "丢包 {n} %",
    rtt: "往返 最小/平均/最大 {min} / {avg} / {max}",
    status: "HTTP {code}",
    noStatus: "无 HTTP 响应",
    total: "总计 {v}",
    firstByte: "首字节 {v}",
    keywordFound: "找到关键字",
    keywordMissing: "未找到关键字",
    redirects: "{n} 次重定向",
    answers: "{n} 条应答",
    via: "经由 {resolver}（{protocol}）",
    connected: "连接用时 {v}",
    to: "至 {addr}",
    reached: "第 {n} 跳到达",
    notReached: "未到达（最后一跳 {n}）",
    lossAtEnd: "{r} 轮中最后一跳丢包 {v}%",
    address: "地址 {ip}",
    target: "目标",
    created: "开始于 {time}",
    finished: "完成于 {time}",
    noNodes: "尚无节点回应。",
  },
  tw: {
    results: "結果",
    starting: "正在開始…",
    running: "執行中",
    queued: "排隊中",
    done: "已完成",
    failed: "失敗",
    answered: "{total} 個節點中已有 {n} 個回應",
    pending: "等待節點…",
    success: "成功",
    failure: "失敗",
    details: "詳情",
    sent: "傳送 {n}",
    received: "接收 {n}",
    loss: "遺失 {n} %",
    rtt: "往返 最小/平均/最大 {min} / {avg} / {max}",
    status: "HTTP {code}",
    noStatus: "無 HTTP 回應",
    total: "總計 {v}",
    firstByte: "首位元組 {v}",
    keywordFound: "找到關鍵字",
    keywordMissing: "未找到關鍵字",
    redirects: "{n} 次重新導向",
    answers: "{n} 筆應答",
    via: "經由 {resolver}（{protocol}）",
    connected: "連線用時 {v}",
    to: "至 {addr}",
    reached: "第 {n} 跳到達",
    notReached: "未到達（最後一跳 {n}）",
    lossAtEnd: "{r} 輪中最後一跳丟包 {v}%",
    address: "位址 {ip}",
    target: "目標",
    created: "開始於 {time}",
    finished: "完成於 {time}",
    noNodes: "尚無節點回應。",
  },
});

/** The per-node view of a probe task, live or stored: a row per node from the start, filled in as results come. */
export function ProbeResults({ task, directory }: { task: LiveTask; directory?: DirectoryNode[] }) {
  const answered = task.nodes.filter((n) => task.results[n.node_id]).length;
  const status = task.phase === "starting" ? "starting" : (task.status ?? "running");
  return (
    <section aria-labelledby="probe-results-title">
      <header class="card-head">
        <h2 id="probe-results-title">{t("results")}</h2>
        <span
          class={status === "done" ? "ok" : status === "failed" ? "bad" : "muted"}
          data-testid="task-status"
        >
          {t(status as "starting")}
        </span>
      </header>
      {task.target ? (
        <p>
          <span class="muted">{t("target")}:</span> <code>{task.target}</code>
          {task.type ? <span class="muted"> ({probeName(task.type)})</span> : null}
        </p>
      ) : null}
      <p class="muted" aria-live="polite">
        {task.nodes.length > 0 ? t("answered", { n: answered, total: task.nodes.length }) : t("noNodes")}
        {task.createdAt ? ` · ${t("created", { time: formatTime(task.createdAt) })}` : ""}
        {task.finishedAt ? ` · ${t("finished", { time: formatTime(task.finishedAt) })}` : ""}
      </p>
      <ul class="plain-list">
        {task.nodes.map((n) => (
          <NodeRow
            key={n.node_id}
            node={n}
            known={directory?.find((d) => d.id === n.node_id)}
            result={task.results[n.node_id]}
            type={task.type}
          />
        ))}
      </ul>
    </section>
  );
}

function NodeRow(props: {
  node: TaskNode;
  known: DirectoryNode | undefined;
  result: ResultEntry | undefined;
  type: ProbeType | undefined;
}) {
  const { node, known, result, type } = props;
  const country = node.country ?? known?.country;
  const place = [countryLabel(country), node.region ?? known?.region, node.provider ?? known?.provider]
    .filter(Boolean)
    .join(" · ");
  const state = !result ? "pending" : result.success ? "ok" : "failed";
  return (
    <li class="card node-result" data-node={node.node_id} data-state={state}>
      <div class="card-head">
        <div>
          <strong>{node.node_name}</strong> <span class="muted">{place}</span>
        </div>
        <div>
          {state === "pending" ? (
            <span class="muted" aria-busy="true">
              {t("pending")}
            </span>
          ) : (
            <>
              <StatusDot ok={state === "ok"} label={state === "ok" ? t("success") : t("failure")} />
              <span class={state === "ok" ? "ok" : "bad"}>
                {state === "ok" ? t("success") : t("failure")}
              </span>
              {result?.latency_ms !== null && result?.latency_ms !== undefined ? (
                <strong> {ms(result.latency_ms)}</strong>
              ) : null}
            </>
          )}
        </div>
      </div>
      {result?.error ? (
        <p class="bad node-error" title={result.error.message} data-code={result.error.code}>
          {runErrorText(result.error.code)}
        </p>
      ) : null}
      {result && type ? <Summary type={type} r={result} /> : null}
      {result && type ? (
        <details>
          <summary>{t("details")}</summary>
          <ResultDetails type={type} r={result} />
        </details>
      ) : null}
    </li>
  );
}

/** The figures of one result that matter at a glance, per probe type. */
function Summary({ type, r }: { type: ProbeType; r: ResultEntry }) {
  const parts: string[] = [];
  if (type === "ping" && r.packets_sent !== undefined) {
    parts.push(
      `${t("sent", { n: r.packets_sent })} · ${t("received", { n: r.packets_received ?? 0 })}`,
      t("loss", { n: formatNumber(r.packet_loss ?? 0, 1) }),
    );
    if (r.rtt) parts.push(t("rtt", { min: ms(r.rtt.min), avg: ms(r.rtt.avg), max: ms(r.rtt.max) }));
  } else if (type === "http" && (r.timings || r.status_code !== undefined)) {
    parts.push(r.status_code ? t("status", { code: r.status_code }) : t("noStatus"));
    if (r.timings) {
      if (r.timings.first_byte !== null) parts.push(t("firstByte", { v: ms(r.timings.first_byte) }));
      parts.push(t("total", { v: ms(r.timings.total) }));
    }
    if (r.keyword_found !== undefined) parts.push(r.keyword_found ? t("keywordFound") : t("keywordMissing"));
    if (r.redirects?.length) parts.push(t("redirects", { n: r.redirects.length }));
  } else if (type === "dns" && r.rcode !== undefined) {
    parts.push(r.rcode, t("answers", { n: r.answers?.length ?? 0 }));
    if (r.resolver) parts.push(t("via", { resolver: r.resolver, protocol: r.protocol ?? "udp" }));
  } else if (type === "tcp" && r.connect_ms !== undefined && r.connect_ms !== null) {
    parts.push(t("connected", { v: ms(r.connect_ms) }));
    if (r.resolved_ip) parts.push(t("to", { addr: `${r.resolved_ip}:${r.port ?? ""}` }));
  } else if ((type === "traceroute" || type === "mtr") && r.hops) {
    parts.push(r.reached ? t("reached", { n: r.hops.length }) : t("notReached", { n: r.hops.length }));
    const last = r.hops.at(-1);
    if (type === "mtr" && last?.loss_pct !== undefined)
      parts.push(t("lossAtEnd", { v: last.loss_pct, r: r.rounds ?? 0 }));
  }
  if (r.resolved_ip && type !== "tcp") parts.push(t("address", { ip: r.resolved_ip }));
  if (parts.length === 0) return null;
  return (
    <p class="summary" data-testid="result-summary">
      {parts.join(" · ")}
    </p>
  );
}
