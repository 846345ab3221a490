import { useState } from "preact/hooks";
import { formatTime, messages } from "../../i18n.js";
import { Card, DataTable, ErrorBox, Loading, useLoad } from "../../ui.js";
import { ackEvent, type EventEvidence, listEvents } from "./alert-shape.js";
import type { Monitor } from "./monitor-shape.js";

const t = messages({
  en: {
    title: "Latest events",
    none: "No events yet: they appear when a monitor with a policy goes down or up.",
    type: "Type",
    all: "All types",
    down: "down",
    up: "up",
    reminder: "reminder",
    escalation: "escalation",
    test: "test",
    monitor_stale: "no data",
    evidence: "Evidence",
    hops: "hops",
    notReached: "not reached",
    ack: "Acknowledge",
    acked: "acknowledged",
    time: "Time",
    monitor: "Monitor",
    change: "Change",
    refresh: "Refresh",
    unknown: "(deleted)",
  },
  cn: {
    title: "最新事件",
    none: "还没有事件：配置了策略的监控发生故障或恢复时会出现在这里。",
    type: "类型",
    all: "全部类型",
    down: "故障",
    up: "恢复",
    reminder: "提醒",
    escalation: "升级",
    test: "测试",
    monitor_stale: "无数据",
    evidence: "诊断证据",
    hops: "跳",
    notReached: "未到达",
    ack: "确认",
    acked: "已确认",
    time: "时间",
    monitor: "监控",
    change: "变化",
    refresh: "刷新",
    unknown: "（已删除）",
  },
  tw: {
    title: "最新事件",
    none: "還沒有事件：設定了政策的監控發生異常或恢復時會出現在這裡。",
    type: "類型",
    all: "全部類型",
    down: "異常",
    up: "恢復",
    reminder: "提醒",
    escalation: "升級",
    test: "測試",
    monitor_stale: "無資料",
    evidence: "診斷證據",
    hops: "跳",
    notReached: "未到達",
    ack: "確認",
    acked: "已確認",
    time: "時間",
    monitor: "監控",
    change: "變化",
    refresh: "重新整理",
    unknown: "（已刪除）",
  },
});

const types = ["down", "up", "reminder", "escalation", "test", "monitor_stale"] as const;

/** A down event's evidence: per failing node, its path to the target and what its resolver answered. */
function Evidence({ evidence }: { evidence: EventEvidence[] }) {
  return (
    <details>
      <summary>{t("evidence")}</summary>
      <ul>
        {evidence.map((e) => {
          // mtr where the node has it, else its traceroute: the same hops (mtr adds loss per hop).
          const path = e.mtr ?? e.traceroute;
          const hops = path?.detail?.hops ?? [];
          const answers = e.dns?.detail?.answers ?? [];
          return (
            <li key={e.node_id}>
              <strong>{e.node_id}</strong> → {e.host} ({e.mtr ? "mtr" : "traceroute"}):{" "}
              {path?.error
                ? path.error.code
                : `${hops.length} ${t("hops")} (${hops.map((h) => h.ip ?? "*").join(" › ")})${
                    path?.detail?.reached === false ? ` ${t("notReached")}` : ""
                  }`}
              {e.dns
                ? ` · DNS ${e.dns.error ? e.dns.error.code : answers.map((a) => a.value).join(" ") || (e.dns.detail?.rcode ?? "")}`
                : ""}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

export function Events({ monitors }: { monitors: Monitor[] | undefined }) {
  const [type, setType] = useState("");
  const events = useLoad(() => listEvents(type), [type]);
  const monitorName = (id: string) => monitors?.find((m) => m.id === id)?.name ?? t("unknown");
  const [acking, setAcking] = useState("");
  const acknowledge = async (id: string) => {
    setAcking(id);
    try {
      await ackEvent(id);
    } finally {
      setAcking("");
      events.reload();
    }
  };
  return (
    <Card
      title={t("title")}
      actions={
        <div class="row">
          <label style={{ display: "flex", gap: "6px", alignItems: "center" }}>
            <span class="sr-only">{t("type")}</span>
            <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
              <option value="">{t("all")}</option>
              {types.map((x) => (
                <option value={x}>{t(x)}</option>
              ))}
            </select>
          </label>
          <button type="button" class="secondary" onClick={events.reload}>
            {t("refresh")}
          </button>
        </div>
      }
    >
      {events.error ? (
        <ErrorBox error={events.error} onRetry={events.reload} />
      ) : !events.data ? (
        <Loading />
      ) : events.data.items.length === 0 ? (
        <p class="muted">{t("none")}</p>
      ) : (
        <DataTable heads={[t("time"), t("type"), t("monitor"), t("change")]}>
          {events.data.items.map((e) => (
            <tr key={e.id}>
              <td>{formatTime(e.created_at)}</td>
              <td class={e.type === "down" ? "bad" : e.type === "up" ? "ok" : ""}>
                {(types as readonly string[]).includes(e.type) ? t(e.type) : e.type}
              </td>
              <td>
                <a href={`#/monitors/${encodeURIComponent(e.monitor_id)}`}>{monitorName(e.monitor_id)}</a>
              </td>
              <td>
                {e.detail?.from && e.detail.to ? `${e.detail.from} → ${e.detail.to}` : "—"}
                {e.detail?.nodes?.length
                  ? ` (${e.detail.nodes.map((n) => `${n.node_id}: ${n.error_code ?? "?"}`).join(", ")})`
                  : ""}
                {e.detail?.reason ? ` (${e.detail.reason})` : ""}
                {e.detail?.evidence?.length ? <Evidence evidence={e.detail.evidence} /> : null}
                {e.type !== "down" ? null : e.acknowledged_at ? (
                  <span class="muted"> · {t("acked")}</span>
                ) : (
                  <>
                    {" "}
                    <button
                      type="button"
                      class="secondary"
                      disabled={acking === e.id}
                      onClick={() => void acknowledge(e.id)}
                    >
                      {t("ack")}
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
