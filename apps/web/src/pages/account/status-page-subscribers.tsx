import { ConfirmButton } from "../../components/account-confirm.js";
import { ListBody, MoreRows, usePagedList } from "../../components/paged-list.js";
import { formatTime, messages } from "../../i18n.js";
import { DataTable, ErrorBox } from "../../ui.js";
import type { StatusPage } from "./status-page-incident.js";
import type { Subscriber } from "./status-page-shape.js";

const t = messages({
  en: {
    heading: "Subscribers",
    none: "No subscribers. Readers subscribe by email on the public page; webhooks are added through the API.",
    type: "Type",
    email: "Email",
    webhook: "Webhook",
    destination: "Address",
    state: "State",
    confirmed: "Confirmed",
    pending: "Waiting for the mailed link",
    added: "Added",
    actions: "Actions",
    remove: "Remove",
    removeNamed: "Remove {name}",
    removeQuestion: "Remove {name}? It gets no more news of this page.",
    removed: "{name} removed.",
    more: "Show more subscribers",
    shown: "{shown} of {total} subscribers shown.",
  },
  cn: {
    heading: "订阅者",
    none: "还没有订阅者。读者可在公开页面用邮箱订阅；Webhook 通过 API 添加。",
    type: "类型",
    email: "邮件",
    webhook: "Webhook",
    destination: "地址",
    state: "状态",
    confirmed: "已确认",
    pending: "等待点击邮件中的链接",
    added: "添加时间",
    actions: "操作",
    remove: "移除",
    removeNamed: "移除 {name}",
    removeQuestion: "移除 {name}？它将不再收到这个页面的消息。",
    removed: "已移除 {name}。",
    more: "显示更多订阅者",
    shown: "已显示 {shown} 个订阅者，共 {total} 个。",
  },
  tw: {
    heading: "訂閱者",
    none: "還沒有訂閱者。讀者可在公開頁面用電子郵件訂閱；Webhook 透過 API 新增。",
    type: "類型",
    email: "電子郵件",
    webhook: "Webhook",
    destination: "地址",
    state: "狀態",
    confirmed: "已確認",
    pending: "等待點擊郵件中的連結",
    added: "新增時間",
    actions: "操作",
    remove: "移除",
    removeNamed: "移除 {name}",
    removeQuestion: "移除 {name}？它將不再收到這個頁面的消息。",
    removed: "已移除 {name}。",
    more: "顯示更多訂閱者",
    shown: "已顯示 {shown} 個訂閱者，共 {total} 個。",
  },
});

/** A page's subscribers (email and webhook), newest first, each removable after a second click. */
export function PageSubscribers({ page }: { page: StatusPage }) {
  const { list, more, error, notice, remove } = usePagedList<Subscriber>(
    `/v1/status-pages/${encodeURIComponent(page.id)}/subscribers`,
  );
  return (
    <div>
      <h4 style={{ margin: "12px 0 4px", fontSize: "0.95rem" }}>{t("heading")}</h4>
      <p role="status" class="ok" style={{ margin: notice ? "4px 0" : 0, overflowWrap: "anywhere" }}>
        {notice}
      </p>
      <ErrorBox error={error} />
      <ListBody
        list={list}
        empty={t("none")}
        rows={() => (
          <DataTable
            heads={[t("type"), t("destination"), t("state"), t("added"), t("actions")]}
            label={t("heading")}
            cards
          >
            {list.data?.items.map((s) => (
              <tr key={s.id} data-subscriber-id={s.id}>
                <td data-label={t("type")}>{t(s.type)}</td>
                <td data-label={t("destination")} style={{ overflowWrap: "anywhere" }}>
                  {s.destination}
                </td>
                <td data-label={t("state")}>
                  {s.confirmed ? t("confirmed") : <span class="muted">{t("pending")}</span>}
                </td>
                <td data-label={t("added")}>{formatTime(s.created_at)}</td>
                <td data-label={t("actions")}>
                  <ConfirmButton
                    label={t("remove")}
                    accessibleLabel={t("removeNamed", { name: s.destination })}
                    question={t("removeQuestion", { name: s.destination })}
                    yes={t("remove")}
                    onConfirm={() => remove(s, t("removed", { name: s.destination }))}
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      />
      <MoreRows
        list={list}
        shown={(shown, total) => t("shown", { shown, total })}
        label={t("more")}
        onMore={more}
      />
    </div>
  );
}
