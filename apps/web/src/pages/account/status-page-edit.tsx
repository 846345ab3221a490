import { useEffect, useRef, useState } from "preact/hooks";
import { call } from "../../api.js";
import { describedBy, FieldError, FormError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import { Loading } from "../../ui.js";
import type { Monitor } from "./monitor-shape.js";
import {
  type ComponentRow,
  ComponentsField,
  componentPaths,
  componentRows,
  shownComponents,
} from "./status-page-components.js";
import type { StatusPage } from "./status-page-incident.js";

const t = messages({
  en: {
    edit: "Edit page",
    editNamed: "Edit {name}",
    heading: "Edit the page",
    name: "Title",
    slug: "Slug (the page's address: /status/…)",
    slugMoves: "A new slug moves the public page: the old address answers 404.",
    saving: "Saving…",
    save: "Save changes",
    cancel: "Cancel",
    saved: "{name} saved.",
  },
  cn: {
    edit: "编辑页面",
    editNamed: "编辑 {name}",
    heading: "编辑页面",
    name: "标题",
    slug: "短名（页面地址：/status/…）",
    slugMoves: "改了短名，公开页面就换了地址：旧地址会返回 404。",
    saving: "保存中…",
    save: "保存修改",
    cancel: "取消",
    saved: "已保存 {name}。",
  },
  tw: {
    edit: "編輯頁面",
    editNamed: "編輯 {name}",
    heading: "編輯頁面",
    name: "標題",
    slug: "短名（頁面網址：/status/…）",
    slugMoves: "改了短名，公開頁面就換了網址：舊網址會回傳 404。",
    saving: "儲存中…",
    save: "儲存修改",
    cancel: "取消",
    saved: "已儲存 {name}。",
  },
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A page's title, slug and components (which monitors it shows, under which names), changed with one
 * PATCH; components are sent only when they changed (a component over a monitor since deleted would fail
 * a change of the title alone). `onSaved` gets the page as the API answers it.
 */
function EditForm({
  page,
  monitors,
  onSaved,
  onCancel,
}: {
  page: StatusPage;
  monitors: Monitor[];
  onSaved: (p: StatusPage) => void;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(page.title);
  const [slug, setSlug] = useState(page.slug);
  const [rows, setRows] = useState<ComponentRow[]>(() => componentRows(page, monitors));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const first = useRef<HTMLInputElement>(null);
  // Opened by its button: the focus moves into the form.
  useEffect(() => first.current?.focus(), []);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const components = shownComponents(rows);
    try {
      const saved = await call<StatusPage>("PATCH", `/v1/status-pages/${encodeURIComponent(page.id)}`, {
        body: {
          title: title.trim(),
          slug: slug.trim(),
          ...(same(components, page.components) ? {} : { components }),
        },
      });
      onSaved(saved);
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
      aria-label={t("editNamed", { name: page.title })}
      onKeyDown={(e) => {
        if (e.key === "Escape") onCancel();
      }}
    >
      <h4 style={{ margin: "8px 0 0", fontSize: "0.95rem" }}>{t("heading")}</h4>
      <label>
        {t("name")}
        <input
          ref={first}
          required
          maxLength={120}
          value={title}
          aria-invalid={invalid(error, "body.title")}
          aria-describedby={describedBy(error, "body.title")}
          onInput={(e) => setTitle(e.currentTarget.value)}
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
          onInput={(e) => setSlug(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.slug" />
      </label>
      {slug.trim() !== page.slug ? (
        <p class="muted" style={{ margin: 0 }}>
          {t("slugMoves")}
        </p>
      ) : null}
      <ComponentsField rows={rows} monitors={monitors} error={error} onChange={setRows} />
      <div class="row">
        <button type="submit" disabled={busy}>
          {busy ? t("saving") : t("save")}
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
          {t("cancel")}
        </button>
      </div>
      <FormError error={error} placed={["body.title", "body.slug", ...componentPaths(rows)]} />
    </form>
  );
}

/**
 * "Edit page" at the top of a page's panel: opens the form (one at a time); once saved, the form closes,
 * says so, and `onChanged` lists the pages again. `monitors` is undefined while they load.
 */
export function PageSettings({
  page,
  monitors,
  onChanged,
}: {
  page: StatusPage;
  monitors: Monitor[] | undefined;
  onChanged: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState("");
  return (
    <div>
      <div class="row" style={{ alignItems: "center", marginTop: "8px" }}>
        <button
          type="button"
          class="secondary"
          aria-label={t("editNamed", { name: page.title })}
          aria-expanded={editing}
          onClick={() => {
            setNotice("");
            setEditing(!editing);
          }}
        >
          {t("edit")}
        </button>
      </div>
      <p role="status" class="ok" style={{ margin: notice ? "4px 0" : 0, overflowWrap: "anywhere" }}>
        {notice}
      </p>
      {!editing ? null : monitors ? (
        <EditForm
          page={page}
          monitors={monitors}
          onCancel={() => setEditing(false)}
          onSaved={(p) => {
            setEditing(false);
            setNotice(t("saved", { name: p.title }));
            onChanged();
          }}
        />
      ) : (
        <Loading />
      )}
    </div>
  );
}
