import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import type { StatusPage } from "./status-page-incident.js";
import type { Maintenance } from "./status-page-shape.js";

const t = messages({
  en: {
    form: "Schedule maintenance on {name}",
    heading: "Schedule maintenance",
    name: "Title",
    start: "Start (local time, {zone})",
    end: "End (local time, {zone})",
    message: "Message (optional)",
    zone: "Times are in this browser's time zone, {zone}.",
    scheduling: "Scheduling…",
    schedule: "Schedule maintenance",
  },
  cn: {
    form: "为 {name} 安排维护",
    heading: "安排维护",
    name: "标题",
    start: "开始（当地时间，{zone}）",
    end: "结束（当地时间，{zone}）",
    message: "说明（可选）",
    zone: "时间按这个浏览器的时区 {zone} 填写和显示。",
    scheduling: "安排中…",
    schedule: "安排维护",
  },
  tw: {
    form: "為 {name} 安排維護",
    heading: "安排維護",
    name: "標題",
    start: "開始（當地時間，{zone}）",
    end: "結束（當地時間，{zone}）",
    message: "說明（選填）",
    zone: "時間依這個瀏覽器的時區 {zone} 填寫和顯示。",
    scheduling: "安排中…",
    schedule: "安排維護",
  },
});

/** The browser's time zone (an IANA name), in which times are entered and shown. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** A `datetime-local` value (the browser's local time) as ISO 8601 in UTC; "" when it is not a time. */
const iso = (local: string) => {
  const at = new Date(local);
  return local && !Number.isNaN(at.getTime()) ? at.toISOString() : "";
};

/**
 * Schedules one of a page's own maintenance entries: a title, a start and an end entered in the browser's
 * local time (sent with their offset, as UTC), and an optional message shown under the title on the public
 * page. `onScheduled` gets the entry as the API answers it.
 */
export function MaintenanceForm({
  page,
  onScheduled,
}: {
  page: StatusPage;
  onScheduled: (m: Maintenance) => void;
}) {
  const [title, setTitle] = useState("");
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const zone = browserZone();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const made = await call<Maintenance>(
        "POST",
        `/v1/status-pages/${encodeURIComponent(page.id)}/maintenance`,
        {
          body: {
            title: title.trim(),
            starts_at: iso(start),
            ends_at: iso(end),
            ...(message.trim() ? { description: message.trim() } : {}),
          },
        },
      );
      setTitle("");
      setStart("");
      setEnd("");
      setMessage("");
      onScheduled(made);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const time = (label: string, path: string, value: string, set: (v: string) => void) => (
    <label>
      {label}
      <input
        type="datetime-local"
        required
        value={value}
        style={{ minWidth: 0 }}
        aria-invalid={invalid(error, path)}
        aria-describedby={describedBy(error, path)}
        onInput={(e) => set(e.currentTarget.value)}
      />
      <FieldError error={error} path={path} />
    </label>
  );
  return (
    <form class="stack" onSubmit={submit} aria-label={t("form", { name: page.title })}>
      <h4 style={{ margin: "8px 0 0", fontSize: "0.95rem" }}>{t("heading")}</h4>
      <p class="muted" style={{ margin: 0 }}>
        {t("zone", { zone })}
      </p>
      <label>
        {t("name")}
        <input
          required
          maxLength={200}
          value={title}
          aria-invalid={invalid(error, "body.title")}
          aria-describedby={describedBy(error, "body.title")}
          onInput={(e) => setTitle(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.title" />
      </label>
      {time(t("start", { zone }), "body.starts_at", start, setStart)}
      {time(t("end", { zone }), "body.ends_at", end, setEnd)}
      <label>
        {t("message")}
        <textarea
          rows={2}
          maxLength={5000}
          value={message}
          aria-invalid={invalid(error, "body.description")}
          aria-describedby={describedBy(error, "body.description")}
          onInput={(e) => setMessage(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.description" />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? t("scheduling") : t("schedule")}
        </button>
      </div>
      <FormError
        error={error}
        placed={["body.title", "body.starts_at", "body.ends_at", "body.description"]}
      />
    </form>
  );
}
