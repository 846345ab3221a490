import { describedBy, FieldError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import type { Monitor } from "./monitor-shape.js";
import type { StatusPage } from "./status-page-incident.js";

const t = messages({
  en: {
    legend: "Components: the monitors on the page, and the name each shows as",
    show: "Show {monitors}",
    nameOf: "Name on the page for {monitors}",
    group: "{monitors} (one component)",
    unknown: "monitor {id}",
    none: "No monitors yet: create one to show it on a page.",
  },
  cn: {
    legend: "组件：页面上的监控，以及各自显示的名称",
    show: "显示 {monitors}",
    nameOf: "{monitors} 在页面上的名称",
    group: "{monitors}（同一组件）",
    unknown: "监控 {id}",
    none: "还没有监控：先创建一个，才能放到页面上。",
  },
  tw: {
    legend: "元件：頁面上的監控，以及各自顯示的名稱",
    show: "顯示 {monitors}",
    nameOf: "{monitors} 在頁面上的名稱",
    group: "{monitors}（同一元件）",
    unknown: "監控 {id}",
    none: "還沒有監控：先建立一個，才能放到頁面上。",
  },
});

/** A component the form offers: one of the page's (shown), or one of the account's other monitors. */
export interface ComponentRow {
  key: string;
  name: string;
  monitor_ids: string[];
  shown: boolean;
}

/**
 * The page's components in their order (groups of several monitors kept as they are), then each of the
 * account's monitors not on the page, not shown, named as the monitor is.
 */
export function componentRows(page: StatusPage, monitors: Monitor[]): ComponentRow[] {
  const onPage = new Set(page.components.flatMap((c) => c.monitor_ids));
  return [
    ...page.components.map((c, i) => ({
      key: `c${i}`,
      name: c.name,
      monitor_ids: c.monitor_ids,
      shown: true,
    })),
    ...monitors
      .filter((m) => !onPage.has(m.id))
      .map((m) => ({ key: m.id, name: m.name, monitor_ids: [m.id], shown: false })),
  ];
}

/** The components to send: the shown rows, in order. */
export const shownComponents = (rows: ComponentRow[]) =>
  rows.filter((r) => r.shown).map((r) => ({ name: r.name.trim(), monitor_ids: r.monitor_ids }));

/** The error paths of the shown rows' fields (`body.components.<i>`, by their index in what is sent). */
export const componentPaths = (rows: ComponentRow[]) =>
  rows.filter((r) => r.shown).map((_, i) => `body.components.${i}`);

/**
 * Each component with a checkbox (on the page or not) and the name it shows as; an error the API names for
 * a component (a blank name, a monitor gone) by its row.
 */
export function ComponentsField({
  rows,
  monitors,
  error,
  onChange,
}: {
  rows: ComponentRow[];
  monitors: Monitor[];
  error: unknown;
  onChange: (rows: ComponentRow[]) => void;
}) {
  const names = new Map(monitors.map((m) => [m.id, m.name]));
  const label = (r: ComponentRow) => {
    const list = r.monitor_ids.map((id) => names.get(id) ?? t("unknown", { id })).join(", ");
    return r.monitor_ids.length > 1 ? t("group", { monitors: list }) : list;
  };
  const set = (key: string, change: Partial<ComponentRow>) =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  let sent = -1;
  return (
    <fieldset style={{ border: "none", padding: 0, margin: 0, minWidth: 0 }}>
      <legend style={{ fontSize: "0.9rem", marginBottom: "4px" }}>{t("legend")}</legend>
      {rows.length === 0 ? (
        <p class="muted" style={{ margin: 0 }}>
          <a href="#/monitors">{t("none")}</a>
        </p>
      ) : null}
      {rows.map((r) => {
        if (r.shown) sent++;
        const path = `body.components.${sent}`;
        const bad = r.shown ? error : undefined;
        return (
          <div
            key={r.key}
            style={{
              display: "grid",
              gridTemplateColumns: "minmax(0, 1fr) minmax(0, 1fr)",
              gap: "4px 8px",
              alignItems: "center",
              marginBottom: "6px",
            }}
          >
            <label style={{ display: "flex", gap: "6px", alignItems: "center", overflowWrap: "anywhere" }}>
              <input
                type="checkbox"
                checked={r.shown}
                aria-label={t("show", { monitors: label(r) })}
                onChange={(e) => set(r.key, { shown: e.currentTarget.checked })}
              />
              {label(r)}
            </label>
            <input
              required={r.shown}
              disabled={!r.shown}
              maxLength={100}
              value={r.name}
              style={{ minWidth: 0 }}
              aria-label={t("nameOf", { monitors: label(r) })}
              aria-invalid={invalid(bad, path)}
              aria-describedby={describedBy(bad, path)}
              onInput={(e) => set(r.key, { name: e.currentTarget.value })}
            />
            {r.shown ? (
              <div style={{ gridColumn: "1 / -1" }}>
                <FieldError error={error} path={path} />
              </div>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
