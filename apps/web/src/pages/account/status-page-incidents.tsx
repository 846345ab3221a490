import { useState } from "preact/hooks";
import { ListBody, MoreRows, usePagedList } from "../../components/paged-list.js";
import { formatNumber, formatTime, messages } from "../../i18n.js";
import { DataTable } from "../../ui.js";
import type { StatusPage } from "./status-page-incident.js";
import { type Incident, openFirst, statusName } from "./status-page-shape.js";
import { UpdateForm } from "./status-page-update.js";

const t = messages({
  en: {
    heading: "Incidents",
    none: "No incidents on this page.",
    status: "Status",
    name: "Title",
    last: "Last update",
    actions: "Actions",
    auto: "opened by its monitor",
    updates: "Updates ({n})",
    update: "Post an update",
    updateNamed: "Post an update to {name}",
    older: "Show older incidents",
    shown: "{shown} of {total} incidents shown.",
    posted: "Update posted to {name}.",
    resolved: "{name} is resolved.",
  },
  cn: {
    heading: "事件",
    none: "这个页面还没有事件。",
    status: "状态",
    name: "标题",
    last: "最近更新",
    actions: "操作",
    auto: "由监控自动创建",
    updates: "进展（{n}）",
    update: "发布进展",
    updateNamed: "为 {name} 发布进展",
    older: "显示更早的事件",
    shown: "已显示 {shown} 个事件，共 {total} 个。",
    posted: "已为 {name} 发布进展。",
    resolved: "{name} 已解决。",
  },
  tw: {
    heading: "事件",
    none: "這個頁面還沒有事件。",
    status: "狀態",
    name: "標題",
    last: "最近更新",
    actions: "操作",
    auto: "由監控自動建立",
    updates: "進展（{n}）",
    update: "發布進展",
    updateNamed: "為 {name} 發布進展",
    older: "顯示更早的事件",
    shown: "已顯示 {shown} 個事件，共 {total} 個。",
    posted: "已為 {name} 發布進展。",
    resolved: "{name} 已解決。",
  },
});

/** Resolved reads as good news, monitoring as nearly there, the rest as trouble. */
const tone = (i: Incident) => (i.status === "resolved" ? "ok" : i.status === "monitoring" ? "warn" : "bad");

/** One incident: its status, title (with its updates folded away), last update and what can be done. */
function Row({ i, updating, onUpdate }: { i: Incident; updating: boolean; onUpdate: () => void }) {
  return (
    <tr data-incident-id={i.id}>
      <td data-label={t("status")}>
        <span class={tone(i)}>{statusName(i.status)}</span>
      </td>
      <td data-label={t("name")} style={{ overflowWrap: "anywhere" }}>
        {/* One box: the card layout at phone width puts each child of a cell in a grid cell. */}
        <div>
          <div>
            {i.title}
            {i.monitor_id ? <span class="muted"> ({t("auto")})</span> : null}
          </div>
          {i.updates.length > 0 ? (
            <details>
              <summary>{t("updates", { n: formatNumber(i.updates.length) })}</summary>
              <ul style={{ margin: "4px 0", paddingLeft: "18px" }}>
                {i.updates.map((u) => (
                  <li key={u.id}>
                    <strong>{statusName(u.status)}</strong> — {u.message}{" "}
                    <span class="muted">({formatTime(u.created_at)})</span>
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      </td>
      <td data-label={t("last")}>{formatTime(i.updated_at)}</td>
      <td data-label={t("actions")}>
        {i.status === "resolved" ? (
          <span class="muted">—</span>
        ) : (
          <button
            type="button"
            class="secondary"
            aria-label={t("updateNamed", { name: i.title })}
            aria-expanded={updating}
            onClick={onUpdate}
          >
            {t("update")}
          </button>
        )}
      </td>
    </tr>
  );
}

/**
 * A page's incidents, open ones first, each with its status, title and last update; an open one takes an
 * update (its form under the list, one at a time). `version` changes when an incident was posted elsewhere.
 */
export function PageIncidents({ page, version }: { page: StatusPage; version: number }) {
  const { list, more, notice, setNotice } = usePagedList<Incident>(
    `/v1/status-pages/${encodeURIComponent(page.id)}/incidents`,
    [version],
  );
  const [updating, setUpdating] = useState<string>();
  const items = list.data ? openFirst(list.data.items) : [];
  const target = items.find((i) => i.id === updating && i.status !== "resolved");
  return (
    <div>
      <h4 style={{ margin: "12px 0 4px", fontSize: "0.95rem" }}>{t("heading")}</h4>
      <p role="status" class="ok" style={{ margin: notice ? "4px 0" : 0 }}>
        {notice}
      </p>
      <ListBody
        list={list}
        empty={t("none")}
        rows={() => (
          <DataTable heads={[t("status"), t("name"), t("last"), t("actions")]} label={t("heading")} cards>
            {items.map((i) => (
              <Row
                key={i.id}
                i={i}
                updating={i.id === target?.id}
                onUpdate={() => {
                  setNotice("");
                  setUpdating(i.id === target?.id ? undefined : i.id);
                }}
              />
            ))}
          </DataTable>
        )}
      />
      <MoreRows
        list={list}
        shown={(shown, total) => t("shown", { shown, total })}
        label={t("older")}
        onMore={more}
      />
      {target ? (
        <UpdateForm
          key={target.id}
          pageId={page.id}
          incident={target}
          onCancel={() => setUpdating(undefined)}
          onPosted={(updated) => {
            setUpdating(undefined);
            setNotice(t(updated.status === "resolved" ? "resolved" : "posted", { name: updated.title }));
            list.reload();
          }}
        />
      ) : null}
    </div>
  );
}
