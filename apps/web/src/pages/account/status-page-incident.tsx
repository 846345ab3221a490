import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import { type IncidentStatus, incidentStatuses, statusName } from "./status-page-shape.js";

const t = messages({
  en: {
    post: "Post an incident",
    page: "Page",
    name: "Title",
    status: "Status",
    message: "Message",
    posting: "Posting…",
    postButton: "Post incident",
    posted: "Posted to {name}.",
  },
  cn: {
    post: "发布事件",
    page: "页面",
    name: "标题",
    status: "状态",
    message: "说明",
    posting: "发布中…",
    postButton: "发布事件",
    posted: "已发布到 {name}。",
  },
  tw: {
    post: "發布事件",
    page: "頁面",
    name: "標題",
    status: "狀態",
    message: "說明",
    posting: "發布中…",
    postButton: "發布事件",
    posted: "已發布到 {name}。",
  },
});

/** A status page as the API answers it (the same in both forms). */
export interface StatusPage {
  id: string;
  slug: string;
  title: string;
  components: { name: string; monitor_ids: string[] }[];
  /** `/status/{slug}`, with the deployment's `VANTAGE_PUBLIC_URL` in front when it is set. */
  public_url: string;
}

/** The page's public address as a full URL (the API's `public_url` is a path without a public URL set). */
export const publicHref = (p: StatusPage) => new URL(p.public_url, location.href).href;

/**
 * Opens an incident on one of the account's pages: its title, status and first update's message.
 * `onPosted` is told which page took it (its incidents are listed again).
 */
export function IncidentForm({
  pages,
  onPosted,
}: {
  pages: StatusPage[];
  onPosted?: (page: StatusPage) => void;
}) {
  const [pageId, setPageId] = useState(pages[0]?.id ?? "");
  const [title, setTitle] = useState("");
  const [status, setStatus] = useState<IncidentStatus>("investigating");
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [posted, setPosted] = useState<StatusPage>();
  // The chosen page, or the first when it was deleted meanwhile.
  const chosen = pages.find((p) => p.id === pageId) ?? pages[0];
  async function submit(e: Event) {
    e.preventDefault();
    if (!chosen) return;
    setBusy(true);
    setError(undefined);
    setPosted(undefined);
    try {
      await call("POST", `/v1/status-pages/${encodeURIComponent(chosen.id)}/incidents`, {
        body: { title: title.trim(), status, message: message.trim() },
      });
      setTitle("");
      setMessage("");
      setPosted(chosen);
      onPosted?.(chosen);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="stack" onSubmit={submit} aria-label={t("post")}>
      <h3 style={{ margin: "8px 0 0", fontSize: "1rem" }}>{t("post")}</h3>
      <label>
        {t("page")}
        <select value={chosen?.id} onChange={(e) => setPageId(e.currentTarget.value)}>
          {pages.map((p) => (
            <option value={p.id} key={p.id}>
              {p.title}
            </option>
          ))}
        </select>
      </label>
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
      <label>
        {t("status")}
        <select value={status} onChange={(e) => setStatus(e.currentTarget.value as IncidentStatus)}>
          {incidentStatuses.map((s) => (
            <option value={s} key={s}>
              {statusName(s)}
            </option>
          ))}
        </select>
      </label>
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
      <div>
        <button type="submit" disabled={busy}>
          {busy ? t("posting") : t("postButton")}
        </button>
      </div>
      {posted ? (
        <p class="muted" role="status">
          {t("posted", { name: posted.title })}{" "}
          <a href={posted.public_url} class="anywhere" target="_blank" rel="noopener">
            {publicHref(posted)}
          </a>
        </p>
      ) : null}
      <FormError error={error} placed={["body.title", "body.message"]} />
    </form>
  );
}
