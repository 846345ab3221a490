import { useState } from "preact/hooks";
import { call } from "../api.js";
import { ConfirmButton } from "../components/account-confirm.js";
import { StateBadge, statusLabel } from "../components/account-state.js";
import { HeartbeatBar } from "../components/heartbeat-bar.js";
import { beatsOf } from "../components/monitor-runs.js";
import { formatNumber, formatTime, messages } from "../i18n.js";
import type { Route } from "../router.js";
import { Card, DataTable, ErrorBox, Loading, useLoad } from "../ui.js";
import { createdMessage, MonitorForm, monitorFormTitle } from "./account/monitor-form.js";
import { intervalOf, listMonitors, type Monitor, type Run, targetOf } from "./account/monitor-shape.js";

const t = messages({
  en: {
    title: "Monitors",
    intro: "Recurring checks of your sites and hosts, run from the probe nodes.",
    yours: "Your monitors ({total})",
    none: "No monitors yet: create one below.",
    state: "State",
    name: "Name",
    type: "Type",
    target: "Target",
    interval: "Every",
    seconds: "{n} s",
    status: "Status",
    lastRun: "Last run",
    notYet: "not yet",
    actions: "Actions",
    pause: "Pause",
    resume: "Resume",
    pauseNamed: "Pause {name}",
    resumeNamed: "Resume {name}",
    remove: "Delete",
    removeNamed: "Delete {name}",
    removeQuestion: "Delete {name} and its history?",
    removeYes: "Delete",
    removed: "Monitor {name} deleted.",
    paused: "Monitor {name} paused.",
    resumed: "Monitor {name} resumed.",
    previous: "Previous page",
    next: "Next page",
    page: "Page {page} of {pages}",
  },
  cn: {
    title: "监控",
    intro: "由探测节点定期检查你的网站和主机。",
    yours: "你的监控（{total}）",
    none: "还没有监控：在下方创建一个。",
    state: "状态",
    name: "名称",
    type: "类型",
    target: "目标",
    interval: "间隔",
    seconds: "{n} 秒",
    status: "运行",
    lastRun: "最近运行",
    notYet: "尚未运行",
    actions: "操作",
    pause: "暂停",
    resume: "恢复",
    pauseNamed: "暂停 {name}",
    resumeNamed: "恢复 {name}",
    remove: "删除",
    removeNamed: "删除 {name}",
    removeQuestion: "删除 {name} 及其历史记录？",
    removeYes: "删除",
    removed: "监控 {name} 已删除。",
    paused: "监控 {name} 已暂停。",
    resumed: "监控 {name} 已恢复。",
    previous: "上一页",
    next: "下一页",
    page: "第 {page} 页，共 {pages} 页",
  },
  tw: {
    title: "監控",
    intro: "由探測節點定期檢查你的網站和主機。",
    yours: "你的監控（{total}）",
    none: "還沒有監控：在下方建立一個。",
    state: "狀態",
    name: "名稱",
    type: "類型",
    target: "目標",
    interval: "間隔",
    seconds: "{n} 秒",
    status: "執行",
    lastRun: "最近執行",
    notYet: "尚未執行",
    actions: "操作",
    pause: "暫停",
    resume: "恢復",
    pauseNamed: "暫停 {name}",
    resumeNamed: "恢復 {name}",
    remove: "刪除",
    removeNamed: "刪除 {name}",
    removeQuestion: "刪除 {name} 及其歷史記錄？",
    removeYes: "刪除",
    removed: "監控 {name} 已刪除。",
    paused: "監控 {name} 已暫停。",
    resumed: "監控 {name} 已恢復。",
    previous: "上一頁",
    next: "下一頁",
    page: "第 {page} 頁，共 {pages} 頁",
  },
});

const perPage = 50;

/** The monitor's last 30 runs as a small heartbeat bar; nothing while they load or when there are none. */
function RecentBeats({ m }: { m: Monitor }) {
  const runs = useLoad(
    () => call<{ items: Run[] }>("GET", `/v1/monitors/${encodeURIComponent(m.id)}/results?limit=30`),
    [m.id, m.last_run_at],
  );
  const items = runs.data?.items ?? [];
  if (items.length === 0) return null;
  const beats = beatsOf(items, intervalOf(m), { now: Date.now(), active: m.status === "active", count: 30 });
  return <HeartbeatBar beats={beats} compact />;
}

function Row({
  m,
  onChanged,
  onError,
}: {
  m: Monitor;
  onChanged: (notice: string) => void;
  onError: (e: unknown) => void;
}) {
  const [busy, setBusy] = useState(false);
  const id = encodeURIComponent(m.id);
  async function toggle() {
    setBusy(true);
    try {
      await call("POST", `/v1/monitors/${id}/${m.status === "active" ? "pause" : "resume"}`);
      onChanged(t(m.status === "active" ? "paused" : "resumed", { name: m.name }));
    } catch (err) {
      onError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <tr data-monitor-id={m.id}>
      <td data-label={t("state")}>
        <StateBadge state={m.state} />
      </td>
      <td data-label={t("name")}>
        {/* One grid item in the phone's card: the name with its bar under it. */}
        <div>
          <a href={`#/monitors/${id}`}>{m.name}</a>
          <RecentBeats m={m} />
        </div>
      </td>
      <td data-label={t("type")}>{m.type.toUpperCase()}</td>
      <td data-label={t("target")} class="anywhere">
        {targetOf(m)}
      </td>
      <td data-label={t("interval")}>{t("seconds", { n: formatNumber(intervalOf(m)) })}</td>
      <td data-label={t("status")}>{statusLabel(m.status)}</td>
      <td data-label={t("lastRun")}>{m.last_run_at ? formatTime(m.last_run_at) : t("notYet")}</td>
      <td data-label={t("actions")}>
        <div class="row" style={{ flexWrap: "nowrap" }}>
          <button
            type="button"
            class="secondary"
            disabled={busy}
            aria-label={t(m.status === "active" ? "pauseNamed" : "resumeNamed", { name: m.name })}
            onClick={toggle}
          >
            {m.status === "active" ? t("pause") : t("resume")}
          </button>
          <ConfirmButton
            label={t("remove")}
            accessibleLabel={t("removeNamed", { name: m.name })}
            question={t("removeQuestion", { name: m.name })}
            yes={t("removeYes")}
            onConfirm={async () => {
              try {
                await call("DELETE", `/v1/monitors/${id}`);
                onChanged(t("removed", { name: m.name }));
              } catch (err) {
                onError(err);
              }
            }}
          />
        </div>
      </td>
    </tr>
  );
}

/** `#/monitors`: the account's monitors with their state; create, pause/resume, delete. */
export function MonitorsPage(_props: { route: Route }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => listMonitors(page, perPage), [page]);
  const [notice, setNotice] = useState("");
  const [error, setError] = useState<unknown>();
  const changed = (msg: string) => {
    setError(undefined);
    setNotice(msg);
    list.reload();
  };
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / perPage)) : 1;
  return (
    <div>
      <h1>{t("title")}</h1>
      <p class="muted">{t("intro")}</p>
      <Card title={t("yours", { total: list.data ? formatNumber(list.data.total) : "…" })}>
        <p role="status" class="ok">
          {notice}
        </p>
        <ErrorBox error={error} />
        {list.error ? (
          <ErrorBox error={list.error} onRetry={list.reload} />
        ) : !list.data ? (
          <Loading />
        ) : list.data.items.length === 0 ? (
          <p class="muted">{t("none")}</p>
        ) : (
          <DataTable
            heads={[
              t("state"),
              t("name"),
              t("type"),
              t("target"),
              t("interval"),
              t("status"),
              t("lastRun"),
              t("actions"),
            ]}
            cards
          >
            {list.data.items.map((m) => (
              <Row key={m.id} m={m} onChanged={changed} onError={setError} />
            ))}
          </DataTable>
        )}
        {pages > 1 ? (
          <nav class="row" aria-label={t("page", { page, pages })} style={{ marginTop: "8px" }}>
            <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              {t("previous")}
            </button>
            <span>{t("page", { page, pages })}</span>
            <button
              type="button"
              class="secondary"
              disabled={page >= pages}
              onClick={() => setPage(page + 1)}
            >
              {t("next")}
            </button>
          </nav>
        ) : null}
      </Card>
      <Card title={monitorFormTitle()}>
        <MonitorForm
          onCreated={(m) => {
            setPage(1);
            changed(createdMessage(m.name));
          }}
        />
      </Card>
    </div>
  );
}
