import { useEffect, useRef, useState } from "preact/hooks";
import { call } from "../../api.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import { type Incident, type IncidentStatus, incidentStatuses, statusName } from "./status-page-shape.js";

const t = messages({
  en: {
    form: "Post an update to {name}",
    heading: "Post an update: {name}",
    status: "Status",
    message: "Message",
    resolves: "Resolved resolves the incident: it stays on the public page for 14 days, marked resolved.",
    posting: "Posting…",
    postButton: "Post update",
    cancel: "Cancel",
  },
  cn: {
    form: "为 {name} 发布进展",
    heading: "发布进展：{name}",
    status: "状态",
    message: "说明",
    resolves: "选择“已解决”会结束该事件：它在公开页面上保留 14 天，标为已解决。",
    posting: "发布中…",
    postButton: "发布进展",
    cancel: "取消",
  },
  tw: {
    form: "為 {name} 發布進展",
    heading: "發布進展：{name}",
    status: "狀態",
    message: "說明",
    resolves: "選擇「已解決」會結束該事件：它在公開頁面上保留 14 天，標為已解決。",
    posting: "發布中…",
    postButton: "發布進展",
    cancel: "取消",
  },
});

/**
 * An update to an open incident of a page: a status (which becomes the incident's; resolved resolves it)
 * and a message. `onPosted` gets the incident as the API answers it, with the new update.
 */
export function UpdateForm({
  pageId,
  incident,
  onPosted,
  onCancel,
}: {
  pageId: string;
  incident: Incident;
  onPosted: (updated: Incident) => void;
  onCancel: () => void;
}) {
  const [status, setStatus] = useState<IncidentStatus>(incident.status);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const first = useRef<HTMLSelectElement>(null);
  // Opened by its button: the focus moves into the form.
  useEffect(() => first.current?.focus(), []);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const updated = await call<Incident>(
        "POST",
        `/v1/status-pages/${encodeURIComponent(pageId)}/incidents/${encodeURIComponent(incident.id)}/updates`,
        { body: { status, message: message.trim() } },
      );
      setMessage("");
      onPosted(updated);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form
      class="stack"
      onSubmit={submit}
      aria-label={t("form", { name: incident.title })}
      onKeyDown={(e) => {
        if (e.key === "Escape") onCancel();
      }}
    >
      <h4 style={{ margin: "8px 0 0", fontSize: "0.95rem", overflowWrap: "anywhere" }}>
        {t("heading", { name: incident.title })}
      </h4>
      <label>
        {t("status")}
        <select
          ref={first}
          value={status}
          aria-invalid={invalid(error, "body.status")}
          aria-describedby={describedBy(error, "body.status")}
          onChange={(e) => setStatus(e.currentTarget.value as IncidentStatus)}
        >
          {incidentStatuses.map((s) => (
            <option value={s} key={s}>
              {statusName(s)}
            </option>
          ))}
        </select>
        <FieldError error={error} path="body.status" />
      </label>
      {status === "resolved" ? (
        <p class="muted" style={{ margin: 0 }}>
          {t("resolves")}
        </p>
      ) : null}
      <label>
        {t("message")}
        <textarea
          required
          rows={3}
          maxLength={5000}
          value={message}
          aria-invalid={invalid(error, "body.message")}
          aria-describedby={describedBy(error, "body.message")}
          onInput={(e) => setMessage(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.message" />
      </label>
      <div class="row">
        <button type="submit" disabled={busy}>
          {busy ? t("posting") : t("postButton")}
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
          {t("cancel")}
        </button>
      </div>
      <FormError error={error} placed={["body.status", "body.message"]} />
    </form>
  );
}
