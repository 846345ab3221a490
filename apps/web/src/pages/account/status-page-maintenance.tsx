import { ConfirmButton } from "../../components/account-confirm.js";
import { ListBody, MoreRows, usePagedList } from "../../components/paged-list.js";
import { formatTime, messages } from "../../i18n.js";
import { DataTable, ErrorBox } from "../../ui.js";
import type { StatusPage } from "./status-page-incident.js";
import { browserZone, MaintenanceForm } from "./status-page-maintenance-form.js";
import type { Maintenance } from "./status-page-shape.js";

const t = messages({
  en: {
    heading: "Maintenance",
    intro:
      "Shown on the public page until it ends; while it runs, components whose monitors are not up read “Under maintenance”. Times in {zone}.",
    none: "No maintenance scheduled on this page.",
    name: "Title",
    when: "When",
    state: "State",
    actions: "Actions",
    upcoming: "Scheduled",
    running: "Under way",
    over: "Over",
    span: "{start} – {end}",
    remove: "Delete",
    removeNamed: "Delete maintenance {name}",
    removeQuestion: "Delete {name}? It leaves the public page.",
    removed: "{name} deleted.",
    scheduled: "{name} scheduled.",
    older: "Show older maintenance",
    shown: "{shown} of {total} entries shown.",
  },
  cn: {
    heading: "维护",
    intro: "在结束前显示在公开页面上；进行期间，监控未正常的组件显示为“维护中”。时间按 {zone} 显示。",
    none: "这个页面还没有安排维护。",
    name: "标题",
    when: "时间",
    state: "状态",
    actions: "操作",
    upcoming: "已安排",
    running: "进行中",
    over: "已结束",
    span: "{start} – {end}",
    remove: "删除",
    removeNamed: "删除维护 {name}",
    removeQuestion: "删除 {name}？它会从公开页面上消失。",
    removed: "已删除 {name}。",
    scheduled: "已安排 {name}。",
    older: "显示更早的维护",
    shown: "已显示 {shown} 条，共 {total} 条。",
  },
  tw: {
    heading: "維護",
    intro: "在結束前顯示在公開頁面上；進行期間，監控未正常的元件顯示為「維護中」。時間依 {zone} 顯示。",
    none: "這個頁面還沒有安排維護。",
    name: "標題",
    when: "時間",
    state: "狀態",
    actions: "操作",
    upcoming: "已安排",
    running: "進行中",
    over: "已結束",
    span: "{start} – {end}",
    remove: "刪除",
    removeNamed: "刪除維護 {name}",
    removeQuestion: "刪除 {name}？它會從公開頁面上消失。",
    removed: "已刪除 {name}。",
    scheduled: "已安排 {name}。",
    older: "顯示更早的維護",
    shown: "已顯示 {shown} 筆，共 {total} 筆。",
  },
});

const stateOf = (m: Maintenance, now: number) =>
  Date.parse(m.ends_at) <= now ? "over" : Date.parse(m.starts_at) <= now ? "running" : "upcoming";
const tones = { over: "muted", running: "warn", upcoming: undefined } as const;

/**
 * A page's own maintenance entries, latest start first (50 at a time), each with its times in the browser's
 * time zone and Delete (which asks once more); the form below schedules one.
 */
export function PageMaintenance({ page }: { page: StatusPage }) {
  const { list, more, error, notice, setNotice, remove } = usePagedList<Maintenance>(
    `/v1/status-pages/${encodeURIComponent(page.id)}/maintenance`,
  );
  const now = Date.now();
  return (
    <div>
      <h4 style={{ margin: "12px 0 4px", fontSize: "0.95rem" }}>{t("heading")}</h4>
      <p class="muted" style={{ margin: "0 0 4px" }}>
        {t("intro", { zone: browserZone() })}
      </p>
      <p role="status" class="ok" style={{ margin: notice ? "4px 0" : 0, overflowWrap: "anywhere" }}>
        {notice}
      </p>
      <ErrorBox error={error} />
      <ListBody
        list={list}
        empty={t("none")}
        rows={() => (
          <DataTable heads={[t("name"), t("when"), t("state"), t("actions")]} label={t("heading")} cards>
            {list.data?.items.map((m) => {
              const state = stateOf(m, now);
              return (
                <tr key={m.id} data-maintenance-id={m.id}>
                  <td data-label={t("name")} style={{ overflowWrap: "anywhere" }}>
                    {/* One box: the card layout at phone width puts each child of a cell in a grid cell. */}
                    <div>
                      <div>{m.title}</div>
                      {m.description ? <div class="muted">{m.description}</div> : null}
                    </div>
                  </td>
                  <td data-label={t("when")}>
                    {t("span", { start: formatTime(m.starts_at), end: formatTime(m.ends_at) })}
                  </td>
                  <td data-label={t("state")}>
                    <span class={tones[state]}>{t(state)}</span>
                  </td>
                  <td data-label={t("actions")}>
                    <ConfirmButton
                      label={t("remove")}
                      accessibleLabel={t("removeNamed", { name: m.title })}
                      question={t("removeQuestion", { name: m.title })}
                      yes={t("remove")}
                      onConfirm={() => remove(m, t("removed", { name: m.title }))}
                    />
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      />
      <MoreRows
        list={list}
        shown={(shown, total) => t("shown", { shown, total })}
        label={t("older")}
        onMore={more}
      />
      <MaintenanceForm
        page={page}
        onScheduled={(m) => {
          setNotice(t("scheduled", { name: m.title }));
          list.reload();
        }}
      />
    </div>
  );
}
