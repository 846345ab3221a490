import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { ConfirmButton } from "../../components/account-confirm.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import { Card, DataTable, ErrorBox, Loading } from "../../ui.js";
import type { Channel, Policy } from "./alert-shape.js";
import type { Monitor } from "./monitor-shape.js";

const t = messages({
  en: {
    title: "Policies",
    intro: "A policy sends a monitor's changes, or every monitor's, to channels.",
    allMonitors: "All monitors (those added later too)",
    allShort: "All monitors",
    none: "No policies yet.",
    name: "Name",
    monitor: "Monitor",
    channels: "Channels",
    when: "When",
    onDown: "when it goes down",
    onUp: "when it is up again",
    reminder: "Remind every … minutes while down",
    reminderShort: "reminder every {n} min",
    optional: "optional, 5–1440",
    noMonitors: "No monitors yet: create one (a policy for all monitors covers it too).",
    noChannels: "No channels yet: the policy records events without sending them.",
    create: "Add a policy",
    creating: "Adding…",
    createButton: "Add policy",
    remove: "Delete",
    removeNamed: "Delete {name}",
    removeQuestion: "Delete {name}? Its past events stay in the history.",
    unknown: "(deleted)",
    actions: "Actions",
  },
  cn: {
    title: "告警策略",
    intro: "策略把一个或全部监控的状态变化发送到通知渠道。",
    allMonitors: "全部监控（包括以后添加的）",
    allShort: "全部监控",
    none: "还没有策略。",
    name: "名称",
    monitor: "监控",
    channels: "通知渠道",
    when: "触发条件",
    onDown: "发生故障时",
    onUp: "恢复正常时",
    reminder: "故障期间每隔几分钟提醒",
    reminderShort: "每 {n} 分钟提醒",
    optional: "可选，5–1440",
    noMonitors: "还没有监控：去创建一个（“全部监控”策略也会覆盖它）。",
    noChannels: "还没有通知渠道：策略只记录事件，不会发送。",
    create: "添加策略",
    creating: "添加中…",
    createButton: "添加策略",
    remove: "删除",
    removeNamed: "删除 {name}",
    removeQuestion: "删除 {name}？已有的事件仍保留在历史中。",
    unknown: "（已删除）",
    actions: "操作",
  },
  tw: {
    title: "告警政策",
    intro: "政策把一個或全部監控的狀態變化傳送到通知管道。",
    allMonitors: "全部監控（包括之後新增的）",
    allShort: "全部監控",
    none: "還沒有政策。",
    name: "名稱",
    monitor: "監控",
    channels: "通知管道",
    when: "觸發條件",
    onDown: "發生異常時",
    onUp: "恢復正常時",
    reminder: "異常期間每隔幾分鐘提醒",
    reminderShort: "每 {n} 分鐘提醒",
    optional: "選填，5–1440",
    noMonitors: "還沒有監控：去建立一個（「全部監控」政策也會涵蓋它）。",
    noChannels: "還沒有通知管道：政策只記錄事件，不會傳送。",
    create: "新增政策",
    creating: "新增中…",
    createButton: "新增政策",
    remove: "刪除",
    removeNamed: "刪除 {name}",
    removeQuestion: "刪除 {name}？既有的事件仍保留在歷史中。",
    unknown: "（已刪除）",
    actions: "操作",
  },
});

/** The monitor choice that makes a policy for every monitor (`scope: "all"`). */
const ALL = "*";

function PolicyForm({
  monitors,
  channels,
  onCreated,
}: {
  monitors: Monitor[];
  channels: Channel[];
  onCreated: () => void;
}) {
  const [name, setName] = useState("");
  const [monitorId, setMonitorId] = useState(monitors[0]?.id ?? ALL);
  const [picked, setPicked] = useState<string[]>([]);
  const [onDown, setOnDown] = useState(true);
  const [onUp, setOnUp] = useState(true);
  const [reminder, setReminder] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", "/v1/alert-policies", {
        body: {
          name: name.trim(),
          ...(monitorId === ALL ? { scope: "all" } : { monitor_id: monitorId }),
          channel_ids: picked,
          on_down: onDown,
          on_up: onUp,
          ...(reminder.trim() ? { reminder_minutes: Number(reminder) } : {}),
        },
      });
      setName("");
      setPicked([]);
      setReminder("");
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const check = { display: "flex", gap: "6px", alignItems: "center" };
  return (
    <form class="stack" onSubmit={submit} aria-label={t("create")}>
      <h3 style={{ margin: "8px 0 0", fontSize: "1rem" }}>{t("create")}</h3>
      <label>
        {t("name")}
        <input
          required
          maxLength={100}
          value={name}
          aria-invalid={invalid(error, "body.name")}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label>
        {t("monitor")}
        <select
          value={monitorId}
          aria-invalid={invalid(error, "body.monitor_id")}
          onChange={(e) => setMonitorId(e.currentTarget.value)}
        >
          <option value={ALL}>{t("allMonitors")}</option>
          {monitors.map((m) => (
            <option value={m.id}>{m.name}</option>
          ))}
        </select>
      </label>
      {monitors.length === 0 ? (
        <p class="muted" style={{ margin: 0 }}>
          <a href="#/monitors">{t("noMonitors")}</a>
        </p>
      ) : null}
      <fieldset style={{ border: "none", padding: 0, margin: 0 }}>
        <legend style={{ fontSize: "0.9rem", marginBottom: "4px" }}>{t("channels")}</legend>
        {channels.length === 0 ? <p class="muted">{t("noChannels")}</p> : null}
        {channels.map((c) => (
          <label style={check}>
            <input
              type="checkbox"
              checked={picked.includes(c.id)}
              onChange={(e) =>
                setPicked(e.currentTarget.checked ? [...picked, c.id] : picked.filter((x) => x !== c.id))
              }
            />
            {c.name}
          </label>
        ))}
      </fieldset>
      <fieldset style={{ border: "none", padding: 0, margin: 0 }}>
        <legend style={{ fontSize: "0.9rem", marginBottom: "4px" }}>{t("when")}</legend>
        <label style={check}>
          <input type="checkbox" checked={onDown} onChange={(e) => setOnDown(e.currentTarget.checked)} />
          {t("onDown")}
        </label>
        <label style={check}>
          <input type="checkbox" checked={onUp} onChange={(e) => setOnUp(e.currentTarget.checked)} />
          {t("onUp")}
        </label>
      </fieldset>
      <label>
        {t("reminder")}
        <input
          type="number"
          inputMode="numeric"
          min={5}
          max={1440}
          placeholder={t("optional")}
          value={reminder}
          aria-invalid={invalid(error, "body.reminder_minutes")}
          aria-describedby={describedBy(error, "body.reminder_minutes")}
          onInput={(e) => setReminder(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.reminder_minutes" />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? t("creating") : t("createButton")}
        </button>
      </div>
      <FormError error={error} placed={["body.reminder_minutes"]} />
    </form>
  );
}

export function Policies({
  policies,
  monitors,
  channels,
  onChanged,
}: {
  policies: { data?: { items: Policy[] }; error?: unknown; reload: () => void };
  monitors: Monitor[] | undefined;
  channels: Channel[] | undefined;
  onChanged: () => void;
}) {
  const [error, setError] = useState<unknown>();
  const monitorName = (id: string) => monitors?.find((m) => m.id === id)?.name ?? t("unknown");
  const channelName = (id: string) => channels?.find((c) => c.id === id)?.name ?? id;
  return (
    <Card title={t("title")}>
      <p class="muted">{t("intro")}</p>
      <ErrorBox error={error} />
      {policies.error ? (
        <ErrorBox error={policies.error} onRetry={policies.reload} />
      ) : !policies.data ? (
        <Loading />
      ) : policies.data.items.length === 0 ? (
        <p class="muted">{t("none")}</p>
      ) : (
        <DataTable heads={[t("name"), t("monitor"), t("channels"), t("when"), t("actions")]}>
          {policies.data.items.map((p) => (
            <tr key={p.id} data-policy-id={p.id}>
              <td>{p.name}</td>
              <td>
                {p.monitor_id === null ? (
                  t("allShort")
                ) : (
                  <a href={`#/monitors/${encodeURIComponent(p.monitor_id)}`}>{monitorName(p.monitor_id)}</a>
                )}
              </td>
              <td>{p.channel_ids.map(channelName).join(", ") || "—"}</td>
              <td>
                {[
                  p.on_down ? t("onDown") : "",
                  p.on_up ? t("onUp") : "",
                  p.reminder_minutes ? t("reminderShort", { n: p.reminder_minutes }) : "",
                ]
                  .filter(Boolean)
                  .join("; ") || "—"}
              </td>
              <td>
                <ConfirmButton
                  label={t("remove")}
                  accessibleLabel={t("removeNamed", { name: p.name })}
                  question={t("removeQuestion", { name: p.name })}
                  yes={t("remove")}
                  onConfirm={async () => {
                    setError(undefined);
                    try {
                      await call("DELETE", `/v1/alert-policies/${encodeURIComponent(p.id)}`);
                      onChanged();
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
      {monitors && channels ? (
        <PolicyForm monitors={monitors} channels={channels} onCreated={onChanged} />
      ) : (
        <Loading />
      )}
    </Card>
  );
}
