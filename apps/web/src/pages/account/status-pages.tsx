import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { ConfirmButton } from "../../components/account-confirm.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { ApiErrorBox } from "../../components/api-error.js";
import { messages } from "../../i18n.js";
import { Card, DataTable, Loading, useLoad } from "../../ui.js";
import type { Monitor } from "./monitor-shape.js";
import { pageSize } from "./monitor-shape.js";
import { IncidentForm, publicHref, type StatusPage } from "./status-page-incident.js";
import { PagePanel, panelId } from "./status-page-panel.js";

const t = messages({
  en: {
    title: "Status pages",
    intro:
      "Public pages that show how your monitors are doing, and the incidents you post. Anyone with the link can read them.",
    none: "No status pages.",
    name: "Title",
    slug: "Slug (the page's address: /status/…)",
    address: "Public page",
    components: "Components",
    actions: "Actions",
    pick: "Monitors on the page (one component each)",
    noMonitors: "No monitors yet: create one to show it on a page.",
    create: "Create a status page",
    creating: "Creating…",
    createButton: "Create page",
    remove: "Delete",
    removeNamed: "Delete {name}",
    removeQuestion: "Delete {name}? Its incidents, maintenance and subscribers go with it.",
    manage: "Manage",
    manageNamed: "Manage {name}",
  },
  cn: {
    title: "状态页",
    intro: "公开页面，展示你的监控运行情况以及你发布的事件。任何拿到链接的人都能查看。",
    none: "还没有状态页。",
    name: "标题",
    slug: "短名（页面地址：/status/…）",
    address: "公开页面",
    components: "组件",
    actions: "操作",
    pick: "页面上的监控（每个一个组件）",
    noMonitors: "还没有监控：先创建一个，才能放到页面上。",
    create: "创建状态页",
    creating: "创建中…",
    createButton: "创建页面",
    remove: "删除",
    removeNamed: "删除 {name}",
    removeQuestion: "删除 {name}？它的事件、维护和订阅者会一并删除。",
    manage: "管理",
    manageNamed: "管理 {name}",
  },
  tw: {
    title: "狀態頁",
    intro: "公開頁面，顯示你的監控運作情況以及你發布的事件。任何拿到連結的人都能查看。",
    none: "還沒有狀態頁。",
    name: "標題",
    slug: "短名（頁面網址：/status/…）",
    address: "公開頁面",
    components: "元件",
    actions: "操作",
    pick: "頁面上的監控（每個一個元件）",
    noMonitors: "還沒有監控：先建立一個，才能放到頁面上。",
    create: "建立狀態頁",
    creating: "建立中…",
    createButton: "建立頁面",
    remove: "刪除",
    removeNamed: "刪除 {name}",
    removeQuestion: "刪除 {name}？它的事件、維護和訂閱者會一併刪除。",
    manage: "管理",
    manageNamed: "管理 {name}",
  },
});

const listPages = () => call<{ items: StatusPage[] }>("GET", `/v1/status-pages?${pageSize}=20`);

/** A slug the API takes, from a title: lower-case letters, digits and inner hyphens (empty for a CJK title). */
const slugOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 64)
    .replace(/^-+|-+$/g, "");

function PageForm({ monitors, onCreated }: { monitors: Monitor[]; onCreated: () => void }) {
  const [title, setTitle] = useState("");
  const [slug, setSlug] = useState("");
  /** The slug follows the title until it is edited by hand. */
  const [slugEdited, setSlugEdited] = useState(false);
  const [picked, setPicked] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", "/v1/status-pages", {
        body: {
          title: title.trim(),
          slug: slug.trim(),
          components: monitors
            .filter((m) => picked.includes(m.id))
            .map((m) => ({ name: m.name, monitor_ids: [m.id] })),
        },
      });
      setTitle("");
      setSlug("");
      setSlugEdited(false);
      setPicked([]);
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
          maxLength={120}
          value={title}
          aria-invalid={invalid(error, "body.title")}
          aria-describedby={describedBy(error, "body.title")}
          onInput={(e) => {
            setTitle(e.currentTarget.value);
            if (!slugEdited) setSlug(slugOf(e.currentTarget.value));
          }}
        />
        <FieldError error={error} path="body.title" />
      </label>
      <label>
        {t("slug")}
        <input
          required
          maxLength={64}
          value={slug}
          aria-invalid={invalid(error, "body.slug")}
          aria-describedby={describedBy(error, "body.slug")}
          onInput={(e) => {
            setSlug(e.currentTarget.value);
            setSlugEdited(true);
          }}
        />
        <FieldError error={error} path="body.slug" />
      </label>
      <fieldset style={{ border: "none", padding: 0, margin: 0 }}>
        <legend style={{ fontSize: "0.9rem", marginBottom: "4px" }}>{t("pick")}</legend>
        {monitors.length === 0 ? (
          <p class="muted" style={{ margin: 0 }}>
            <a href="#/monitors">{t("noMonitors")}</a>
          </p>
        ) : null}
        {monitors.map((m) => (
          <label style={check} key={m.id}>
            <input
              type="checkbox"
              checked={picked.includes(m.id)}
              onChange={(e) =>
                setPicked(e.currentTarget.checked ? [...picked, m.id] : picked.filter((x) => x !== m.id))
              }
            />
            {m.name}
          </label>
        ))}
      </fieldset>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? t("creating") : t("createButton")}
        </button>
      </div>
      <FormError error={error} placed={["body.title", "body.slug"]} />
    </form>
  );
}

/**
 * The alerts page's status pages: each with its public address and components; create one over the
 * account's monitors, delete one, post an incident to one; "Manage" shows one page's panel: its title,
 * slug and components (edit them), incidents (an update to an open one, which may resolve it), own
 * maintenance entries (schedule, delete) and subscribers (remove one). docs/status-pages.md has the API.
 */
export function StatusPages({ monitors }: { monitors: Monitor[] | undefined }) {
  const pages = useLoad(listPages);
  const [error, setError] = useState<unknown>();
  /** The page whose panel is shown, and a count of incidents posted by the form. */
  const [openId, setOpenId] = useState<string>();
  const [version, setVersion] = useState(0);
  const open = pages.data?.items.find((p) => p.id === openId);
  return (
    <Card title={t("title")}>
      <p class="muted">{t("intro")}</p>
      <ApiErrorBox error={error} />
      {pages.error ? (
        <ApiErrorBox error={pages.error} onRetry={pages.reload} />
      ) : !pages.data ? (
        <Loading />
      ) : pages.data.items.length === 0 ? (
        <p class="muted">{t("none")}</p>
      ) : (
        <DataTable heads={[t("name"), t("address"), t("components"), t("actions")]} cards>
          {pages.data.items.map((p) => (
            <tr key={p.id} data-status-page-id={p.id}>
              <td data-label={t("name")}>{p.title}</td>
              <td data-label={t("address")}>
                <a href={p.public_url} class="anywhere" target="_blank" rel="noopener">
                  {publicHref(p)}
                </a>
              </td>
              <td data-label={t("components")}>{p.components.length}</td>
              <td data-label={t("actions")}>
                <div class="row">
                  <button
                    type="button"
                    class="secondary"
                    aria-label={t("manageNamed", { name: p.title })}
                    aria-expanded={p.id === open?.id}
                    aria-controls={p.id === open?.id ? panelId(p.id) : undefined}
                    onClick={() => setOpenId(p.id === open?.id ? undefined : p.id)}
                  >
                    {t("manage")}
                  </button>
                  <ConfirmButton
                    label={t("remove")}
                    accessibleLabel={t("removeNamed", { name: p.title })}
                    question={t("removeQuestion", { name: p.title })}
                    yes={t("remove")}
                    onConfirm={async () => {
                      setError(undefined);
                      try {
                        await call("DELETE", `/v1/status-pages/${encodeURIComponent(p.id)}`);
                        pages.reload();
                      } catch (err) {
                        setError(err);
                      }
                    }}
                  />
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {open ? <PagePanel page={open} version={version} monitors={monitors} onChanged={pages.reload} /> : null}
      {monitors ? <PageForm monitors={monitors} onCreated={pages.reload} /> : <Loading />}
      {pages.data && pages.data.items.length > 0 ? (
        <IncidentForm
          pages={pages.data.items}
          onPosted={(p) => {
            setOpenId(p.id);
            setVersion((v) => v + 1);
          }}
        />
      ) : null}
    </Card>
  );
}
