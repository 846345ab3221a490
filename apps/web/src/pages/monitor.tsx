import { useMemo, useState } from "preact/hooks";
import { ApiError, call } from "../api.js";
import { ConfirmButton } from "../components/account-confirm.js";
import { LatencyChart } from "../components/account-latency-chart.js";
import { usePoll } from "../components/account-poll.js";
import { StateBadge, statusLabel } from "../components/account-state.js";
import { HeartbeatBar } from "../components/heartbeat-bar.js";
import { beatsOf, chartData } from "../components/monitor-runs.js";
import { runErrorText } from "../error-messages.js";
import { formatNumber, formatTime, messages } from "../i18n.js";
import { navigate, type Route } from "../router.js";
import { Card, DataTable, ErrorBox, Loading } from "../ui.js";
import { intervalOf, type Monitor, type Run, targetOf, type Uptime } from "./account/monitor-shape.js";

const t = messages({
  en: {
    back: "All monitors",
    type: "Type",
    target: "Target",
    interval: "Every",
    seconds: "{n} s",
    status: "Status",
    since: "State since",
    lastRun: "Last run",
    nextRun: "Next run",
    never: "—",
    pause: "Pause",
    resume: "Resume",
    remove: "Delete",
    removeQuestion: "Delete this monitor and its history?",
    uptime: "Uptime",
    window: "Window",
    w24h: "24 hours",
    w7d: "7 days",
    w30d: "30 days",
    uptimePercent: "Uptime",
    runs: "Runs",
    failures: "Failed runs",
    p50: "Latency p50",
    p95: "Latency p95",
    ms: "{n} ms",
    nodes: "Nodes",
    node: "Node",
    state: "State",
    lastSlot: "Latest run",
    error: "Error",
    latency: "Latency",
    heartbeat: "Last runs",
    chartLabel: "Latency of the last {n} runs per node, in milliseconds",
    noRuns: "No runs yet: the first results appear here shortly after the monitor's next run.",
    recent: "Recent runs",
    time: "Time",
    result: "Result",
    pass: "passed",
    fail: "failed",
    refreshed: "Refreshes every 10 seconds; last at {time}.",
    gone: "This monitor does not exist (any more).",
  },
  cn: {
    back: "全部监控",
    type: "类型",
    target: "目标",
    interval: "间隔",
    seconds: "{n} 秒",
    status: "运行",
    since: "状态开始于",
    lastRun: "最近运行",
    nextRun: "下次运行",
    never: "—",
    pause: "暂停",
    resume: "恢复",
    remove: "删除",
    removeQuestion: "删除此监控及其历史记录？",
    uptime: "可用率",
    window: "时间范围",
    w24h: "24 小时",
    w7d: "7 天",
    w30d: "30 天",
    uptimePercent: "可用率",
    runs: "运行次数",
    failures: "失败次数",
    p50: "延迟 p50",
    p95: "延迟 p95",
    ms: "{n} 毫秒",
    nodes: "节点",
    node: "节点",
    state: "状态",
    lastSlot: "最近运行",
    error: "错误",
    latency: "延迟",
    heartbeat: "最近运行",
    chartLabel: "最近 {n} 次运行中各节点的延迟（毫秒）",
    noRuns: "尚无运行记录：监控下次运行后，结果将很快显示在这里。",
    recent: "最近运行",
    time: "时间",
    result: "结果",
    pass: "通过",
    fail: "失败",
    refreshed: "每 10 秒刷新一次；上次刷新于 {time}。",
    gone: "此监控不存在（或已删除）。",
  },
  tw: {
    back: "全部監控",
    type: "類型",
    target: "目標",
    interval: "間隔",
    seconds: "{n} 秒",
    status: "執行",
    since: "狀態開始於",
    lastRun: "最近執行",
    nextRun: "下次執行",
    never: "—",
    pause: "暫停",
    resume: "恢復",
    remove: "刪除",
    removeQuestion: "刪除此監控及其歷史記錄？",
    uptime: "可用率",
    window: "時間範圍",
    w24h: "24 小時",
    w7d: "7 天",
    w30d: "30 天",
    uptimePercent: "可用率",
    runs: "執行次數",
    failures: "失敗次數",
    p50: "延遲 p50",
    p95: "延遲 p95",
    ms: "{n} 毫秒",
    nodes: "節點",
    node: "節點",
    state: "狀態",
    lastSlot: "最近執行",
    error: "錯誤",
    latency: "延遲",
    heartbeat: "最近執行",
    chartLabel: "最近 {n} 次執行中各節點的延遲（毫秒）",
    noRuns: "尚無執行記錄：監控下次執行後，結果將很快顯示在這裡。",
    recent: "最近執行",
    time: "時間",
    result: "結果",
    pass: "通過",
    fail: "失敗",
    refreshed: "每 10 秒重新整理一次；上次於 {time}。",
    gone: "此監控不存在（或已刪除）。",
  },
});

type Window = "24h" | "7d" | "30d";
const windows: Window[] = ["24h", "7d", "30d"];
const windowLabel = { "24h": "w24h", "7d": "w7d", "30d": "w30d" } as const;

interface Snapshot {
  monitor: Monitor;
  uptime: Uptime;
  runs: Run[];
  names: Record<string, string>;
  at: number;
}

/** Node names from the public node list, for labels; ids alone when it cannot be read. */
let nodeNames: Promise<Record<string, string>> | undefined;
function loadNodeNames(): Promise<Record<string, string>> {
  nodeNames ??= call<{ items: { id: string; name: string }[] }>("GET", "/v1/nodes")
    .then((r) => Object.fromEntries(r.items.map((n) => [n.id, n.name])))
    .catch(() => {
      nodeNames = undefined;
      return {};
    });
  return nodeNames;
}

function ms(v: number | null): string {
  return v == null ? t("never") : t("ms", { n: formatNumber(v, 1) });
}

function Facts({ m }: { m: Monitor }) {
  const rows: [string, preact.ComponentChildren][] = [
    [t("type"), m.type.toUpperCase()],
    [t("target"), <span style={{ wordBreak: "break-all" }}>{targetOf(m)}</span>],
    [t("interval"), t("seconds", { n: formatNumber(intervalOf(m)) })],
    [t("status"), statusLabel(m.status)],
    [t("since"), m.state_changed_at ? formatTime(m.state_changed_at) : t("never")],
    [t("lastRun"), m.last_run_at ? formatTime(m.last_run_at) : t("never")],
    [t("nextRun"), m.next_run_at ? formatTime(m.next_run_at) : t("never")],
  ];
  return (
    <dl class="grid2" style={{ gridTemplateColumns: "repeat(auto-fit, minmax(160px, 1fr))", margin: 0 }}>
      {rows.map(([k, v]) => (
        <div>
          <dt class="muted">{k}</dt>
          <dd style={{ margin: 0 }}>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** `#/monitors/:id`: state, uptime, per-node state and a latency chart, refreshed every ~10 s. */
export function MonitorPage({ route }: { route: Route }) {
  const id = route.params.id ?? "";
  const path = `/v1/monitors/${encodeURIComponent(id)}`;
  const [win, setWin] = useState<Window>("24h");
  const [actionError, setActionError] = useState<unknown>();
  const snap = usePoll<Snapshot>(
    async () => {
      const [monitor, uptime, results, names] = await Promise.all([
        call<Monitor>("GET", path),
        call<Uptime>("GET", `${path}/uptime?window=${win}`),
        call<{ items: Run[] }>("GET", `${path}/results?limit=100`),
        loadNodeNames(),
      ]);
      return { monitor, uptime, runs: results.items, names, at: Date.now() };
    },
    10_000,
    [id, win],
  );
  /** Runs and missed slots, oldest first; the chart draws them all, the bar the last 60. */
  const beats = useMemo(
    () =>
      snap.data
        ? beatsOf(snap.data.runs, intervalOf(snap.data.monitor), {
            now: snap.data.at,
            active: snap.data.monitor.status === "active",
            count: 200,
          })
        : [],
    [snap.data],
  );
  const chart = useMemo(() => (snap.data ? chartData(beats, snap.data.names) : undefined), [beats]);

  if (snap.error instanceof ApiError && snap.error.status === 404)
    return (
      <div>
        <p>
          <a href="#/monitors">← {t("back")}</a>
        </p>
        <p>{t("gone")}</p>
      </div>
    );
  if (!snap.data) return snap.error ? <ErrorBox error={snap.error} onRetry={snap.refresh} /> : <Loading />;

  const { monitor: m, uptime: u, runs, names } = snap.data;
  async function act(fn: () => Promise<unknown>) {
    setActionError(undefined);
    try {
      await fn();
      snap.refresh();
    } catch (err) {
      setActionError(err);
    }
  }
  return (
    <div>
      <p>
        <a href="#/monitors">← {t("back")}</a>
      </p>
      <header class="card-head" style={{ flexWrap: "wrap" }}>
        <h1 style={{ margin: 0 }}>
          {m.name} <StateBadge state={m.state} />
        </h1>
        <div class="row">
          <button
            type="button"
            class="secondary"
            onClick={() => act(() => call("POST", `${path}/${m.status === "active" ? "pause" : "resume"}`))}
          >
            {m.status === "active" ? t("pause") : t("resume")}
          </button>
          <ConfirmButton
            label={t("remove")}
            question={t("removeQuestion")}
            yes={t("remove")}
            onConfirm={() =>
              act(async () => {
                await call("DELETE", path);
                navigate("/monitors");
              })
            }
          />
        </div>
      </header>
      <ErrorBox error={actionError} />
      {snap.error ? <ErrorBox error={snap.error} onRetry={snap.refresh} /> : null}
      <Card>
        <Facts m={m} />
      </Card>
      <Card
        title={t("uptime")}
        actions={
          <label style={{ display: "flex", gap: "6px", alignItems: "center" }}>
            {t("window")}
            <select value={win} onChange={(e) => setWin(e.currentTarget.value as Window)}>
              {windows.map((w) => (
                <option value={w}>{t(windowLabel[w])}</option>
              ))}
            </select>
          </label>
        }
      >
        <dl class="grid2" style={{ gridTemplateColumns: "repeat(auto-fit, minmax(120px, 1fr))", margin: 0 }}>
          {(
            [
              [
                t("uptimePercent"),
                u.uptime_percent == null ? t("never") : `${formatNumber(u.uptime_percent, 3)} %`,
              ],
              [t("runs"), formatNumber(u.runs)],
              [t("failures"), formatNumber(u.failures)],
              [t("p50"), ms(u.latency_p50_ms)],
              [t("p95"), ms(u.latency_p95_ms)],
            ] as const
          ).map(([k, v]) => (
            <div>
              <dt class="muted">{k}</dt>
              <dd style={{ margin: 0, fontSize: "1.2rem" }} data-figure={k}>
                {v}
              </dd>
            </div>
          ))}
        </dl>
      </Card>
      <Card title={t("heartbeat")}>
        {runs.length === 0 ? <p class="muted">{t("noRuns")}</p> : <HeartbeatBar beats={beats.slice(-60)} />}
      </Card>
      <Card title={t("latency")}>
        {runs.length === 0 || !chart ? (
          <p class="muted" role="status">
            {t("noRuns")}
          </p>
        ) : (
          <LatencyChart xs={chart.xs} series={chart.series} label={t("chartLabel", { n: runs.length })} />
        )}
        <p class="muted" style={{ fontSize: "0.85rem" }}>
          {t("refreshed", { time: formatTime(snap.data.at) })}
        </p>
      </Card>
      <div class="grid2">
        <Card title={t("nodes")}>
          {u.nodes.length === 0 ? (
            <p class="muted">{t("noRuns")}</p>
          ) : (
            <DataTable heads={[t("node"), t("state"), t("lastSlot"), t("error")]}>
              {u.nodes.map((n) => (
                <tr>
                  <td>{names[n.node_id] ?? n.node_id}</td>
                  <td>
                    <StateBadge state={n.state} />
                  </td>
                  <td>{formatTime(n.last_slot)}</td>
                  <td>{n.error_code ? runErrorText(n.error_code, n.status_code) : "—"}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>
        <Card title={t("recent")}>
          {runs.length === 0 ? (
            <p class="muted">{t("noRuns")}</p>
          ) : (
            <DataTable heads={[t("time"), t("result"), t("latency")]}>
              {runs.slice(0, 10).map((r) => (
                <tr>
                  <td>{formatTime(r.slot)}</td>
                  <td class={r.success ? "ok" : "bad"}>{r.success ? t("pass") : t("fail")}</td>
                  <td>
                    {r.nodes.map((n) => (
                      <div>
                        {r.nodes.length > 1 ? `${names[n.node_id] ?? n.node_id}: ` : ""}
                        {n.success
                          ? ms(n.latency_ms)
                          : n.error_code
                            ? runErrorText(n.error_code, n.status_code)
                            : t("fail")}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>
      </div>
    </div>
  );
}
