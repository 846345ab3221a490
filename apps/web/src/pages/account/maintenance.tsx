import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { ConfirmButton } from "../../components/account-confirm.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { formatTime, messages } from "../../i18n.js";
import { Card, DataTable, ErrorBox, Loading, useLoad } from "../../ui.js";
import type { Monitor } from "./monitor-shape.js";
import { pageSize } from "./monitor-shape.js";

const t = messages({
  en: {
    title: "Maintenance windows",
    intro:
      "Runs go on during a window, but its state changes send no alert and uptime counts them as maintenance.",
    none: "No maintenance windows.",
    name: "Title",
    monitor: "Monitor",
    allMonitors: "All monitors (those added later too)",
    allShort: "All monitors",
    when: "When",
    once: "One-off",
    recurring: "Recurring",
    start: "Start",
    end: "End",
    rule: "Rule (RRULE)",
    firstStart: "First start (local time)",
    zone: "Time zone",
    minutes: "Length in minutes",
    open: "open now",
    next: "next: {at}",
    create: "Add a maintenance window",
    creating: "Adding…",
    createButton: "Add window",
    remove: "Delete",
    removeNamed: "Delete {name}",
    removeQuestion: "Delete {name}? Alerts it muted stay muted.",
    unknown: "(deleted)",
    actions: "Actions",
  },
  cn: {
    title: "维护窗口",
    intro: "窗口期间检测照常进行，但状态变化不发送告警，可用率把这段时间记为维护。",
    none: "还没有维护窗口。",
    name: "标题",
    monitor: "监控",
    allMonitors: "全部监控（包括以后添加的）",
    allShort: "全部监控",
    when: "时间",
    once: "一次性",
    recurring: "周期性",
    start: "开始",
    end: "结束",
    rule: "规则（RRULE）",
    firstStart: "首次开始（当地时间）",
    zone: "时区",
    minutes: "时长（分钟）",
    open: "进行中",
    next: "下次：{at}",
    create: "添加维护窗口",
    creating: "添加中…",
    createButton: "添加窗口",
    remove: "删除",
    removeNamed: "删除 {name}",
    removeQuestion: "删除 {name}？已静默的告警不会补发。",
    unknown: "（已删除）",
    actions: "操作",
  },
  tw: {
    title: "維護時段",
    intro: "時段內檢測照常進行，但狀態變化不發送告警，可用率把這段時間記為維護。",
    none: "還沒有維護時段。",
    name: "標題",
    monitor: "監控",
    allMonitors: "全部監控（包括日後新增的）",
    allShort: "全部監控",
    when: "時間",
    once: "一次性",
    recurring: "週期性",
    start: "開始",
    end: "結束",
    rule: "規則（RRULE）",
    firstStart: "首次開始（當地時間）",
    zone: "時區",
    minutes: "長度（分鐘）",
    open: "進行中",
    next: "下次：{at}",
    create: "新增維護時段",
    creating: "新增中…",
    createButton: "新增時段",
    remove: "刪除",
    removeNamed: "刪除 {name}",
    removeQuestion: "刪除 {name}？已靜音的告警不會補發。",
    unknown: "（已刪除）",
    actions: "操作",
  },
});

interface Window {
  id: string;
  title: string;
  scope: "monitor" | "all";
  monitor_ids: string[];
  kind: "once" | "recurring";
  recurrence: { rrule: string; time_zone: string; duration_minutes: number } | null;
  active: boolean;
  upcoming: { starts_at: string; ends_at: string }[];
}

const ALL = "__all__";
const listWindows = () => call<{ items: Window[] }>("GET", `/v1/maintenance-windows?${pageSize}=100`);
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
const iso = (local: string) => (local ? new Date(local).toISOString() : "");

function WindowForm({ monitors, onCreated }: { monitors: Monitor[]; onCreated: () => void }) {
  const [title, setTitle] = useState("");
  const [monitorId, setMonitorId] = useState(monitors[0]?.id ?? ALL);
  const [kind, setKind] = useState<"once" | "recurring">("once");
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const [rrule, setRrule] = useState("FREQ=WEEKLY;BYDAY=SU");
  const [zone, setZone] = useState(localZone());
  const [minutes, setMinutes] = useState("60");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", "/v1/maintenance-windows", {
        body: {
          title: title.trim(),
          ...(monitorId === ALL ? { scope: "all" } : { monitor_ids: [monitorId] }),
          ...(kind === "once"
            ? { starts_at: iso(start), ends_at: iso(end) }
            : {
                recurrence: {
                  rrule: rrule.trim(),
                  start_local: start,
                  time_zone: zone.trim(),
                  duration_minutes: Number(minutes),
                },
              }),
        },
      });
      setTitle("");
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const field = (label: string, path: string, input: JSX.Element) => (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `input`, rendered inside the label
    <label>
      {label}
      {input}
      <FieldError error={error} path={path} />
    </label>
  );
  const placed = [
    "body.starts_at",
    "body.ends_at",
    "body.recurrence.rrule",
    "body.recurrence.start_local",
    "body.recurrence.time_zone",
    "body.recurrence.duration_minutes",
  ];
  return (
    <form class="stack" onSubmit={submit} aria-label={t("create")}>
      <h3 style={{ margin: "8px 0 0", fontSize: "1rem" }}>{t("create")}</h3>
      <label>
        {t("name")}
        <input required maxLength={100} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        {t("monitor")}
        <select value={monitorId} onChange={(e) => setMonitorId(e.currentTarget.value)}>
          <option value={ALL}>{t("allMonitors")}</option>
          {monitors.map((m) => (
            <option value={m.id}>{m.name}</option>
          ))}
        </select>
      </label>
      <label>
        {t("when")}
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as "once" | "recurring")}>
          <option value="once">{t("once")}</option>
          <option value="recurring">{t("recurring")}</option>
        </select>
      </label>
      {kind === "once" ? (
        <>
          {field(
            t("start"),
            "body.starts_at",
            <input
              type="datetime-local"
              required
              value={start}
              aria-invalid={invalid(error, "body.starts_at")}
              aria-describedby={describedBy(error, "body.starts_at")}
              onInput={(e) => setStart(e.currentTarget.value)}
            />,
          )}
          {field(
            t("end"),
            "body.ends_at",
            <input
              type="datetime-local"
              required
              value={end}
              aria-invalid={invalid(error, "body.ends_at")}
              aria-describedby={describedBy(error, "body.ends_at")}
              onInput={(e) => setEnd(e.currentTarget.value)}
            />,
          )}
        </>
      ) : (
        <>
          {field(
            t("rule"),
            "body.recurrence.rrule",
            <input
              required
              maxLength={200}
              value={rrule}
              aria-invalid={invalid(error, "body.recurrence.rrule")}
              aria-describedby={describedBy(error, "body.recurrence.rrule")}
              onInput={(e) => setRrule(e.currentTarget.value)}
            />,
          )}
          {field(
            t("firstStart"),
            "body.recurrence.start_local",
            <input
              type="datetime-local"
              required
              value={start}
              aria-invalid={invalid(error, "body.recurrence.start_local")}
              onInput={(e) => setStart(e.currentTarget.value)}
            />,
          )}
          {field(
            t("zone"),
            "body.recurrence.time_zone",
            <input
              required
              value={zone}
              aria-invalid={invalid(error, "body.recurrence.time_zone")}
              onInput={(e) => setZone(e.currentTarget.value)}
            />,
          )}
          {field(
            t("minutes"),
            "body.recurrence.duration_minutes",
            <input
              type="number"
              inputMode="numeric"
              min={1}
              max={10080}
              required
              value={minutes}
              onInput={(e) => setMinutes(e.currentTarget.value)}
            />,
          )}
        </>
      )}
      <div>
        <button type="submit" disabled={busy}>
          {busy ? t("creating") : t("createButton")}
        </button>
      </div>
      <FormError error={error} placed={placed} />
    </form>
  );
}

/** The alerts page's maintenance windows: each with its rule and next occurrence; add and delete. */
export function Maintenance({ monitors }: { monitors: Monitor[] | undefined }) {
  const windows = useLoad(listWindows);
  const [error, setError] = useState<unknown>();
  const monitorName = (id: string) => monitors?.find((m) => m.id === id)?.name ?? t("unknown");
  return (
    <Card title={t("title")}>
      <p class="muted">{t("intro")}</p>
      <ErrorBox error={error} />
      {windows.error ? (
        <ErrorBox error={windows.error} onRetry={windows.reload} />
      ) : !windows.data ? (
        <Loading />
      ) : windows.data.items.length === 0 ? (
        <p class="muted">{t("none")}</p>
      ) : (
        <DataTable heads={[t("name"), t("monitor"), t("when"), t("actions")]}>
          {windows.data.items.map((w) => (
            <tr key={w.id} data-window-id={w.id}>
              <td>{w.title}</td>
              <td>{w.scope === "all" ? t("allShort") : w.monitor_ids.map(monitorName).join(", ")}</td>
              <td>
                {w.recurrence
                  ? `${w.recurrence.rrule} (${w.recurrence.time_zone}, ${w.recurrence.duration_minutes} min)`
                  : t("once")}
                {w.active ? <strong> · {t("open")}</strong> : null}
                {w.upcoming[0] && !w.active
                  ? ` · ${t("next", { at: formatTime(w.upcoming[0].starts_at) })}`
                  : ""}
              </td>
              <td>
                <ConfirmButton
                  label={t("remove")}
                  accessibleLabel={t("removeNamed", { name: w.title })}
                  question={t("removeQuestion", { name: w.title })}
                  yes={t("remove")}
                  onConfirm={async () => {
                    setError(undefined);
                    try {
                      await call("DELETE", `/v1/maintenance-windows/${encodeURIComponent(w.id)}`);
                      windows.reload();
                    } catch (err) {
                      setError(err);
                    }
                  }}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {monitors ? <WindowForm monitors={monitors} onCreated={windows.reload} /> : <Loading />}
    </Card>
  );
}
