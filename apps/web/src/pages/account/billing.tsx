import { useState } from "preact/hooks";
import { ApiError, call } from "../../api.js";
import { ConfirmButton } from "../../components/account-confirm.js";
import { formatTime, locale, messages } from "../../i18n.js";
import { Card, DataTable, ErrorBox, Loading, useLoad } from "../../ui.js";
import { pageSize } from "./monitor-shape.js";
import { planLabel } from "./usage.js";

const t = messages({
  en: {
    subscription: "Subscription",
    status: "Status",
    none: "No subscription: you are on the plan shown above.",
    renews: "Renews on {date}",
    ends: "Ends on {date}: the plan stays until then",
    grace: "Payment failed: the plan is kept until {date}",
    subscribe: "Subscribe to {plan}",
    redirecting: "Opening the checkout…",
    cancel: "Cancel subscription",
    cancelQuestion: "Cancel at the end of the period?",
    cancelYes: "Cancel at period end",
    cancelled: "The subscription ends at the end of the period.",
    manage: "Manage billing",
    notSold:
      "Plans are not sold on this server: each account has the plan its operator gives it, and nothing here is charged. For higher limits, ask whoever runs this server.",
    invoices: "Invoices",
    noInvoices: "No invoices yet.",
    date: "Date",
    amount: "Amount",
    invoiceStatus: "Status",
    view: "View",
    viewInvoice: "View invoice of {date}",
    s_none: "none",
    s_active: "active",
    s_trialing: "trial",
    s_past_due: "payment due",
    s_canceled: "cancelled",
    s_unpaid: "unpaid",
    s_incomplete: "incomplete",
    s_incomplete_expired: "expired",
    s_paused: "paused",
  },
  cn: {
    subscription: "订阅",
    status: "状态",
    none: "尚未订阅：当前使用上方显示的套餐。",
    renews: "将于 {date} 续订",
    ends: "将于 {date} 结束：在此之前套餐保持不变",
    grace: "付款失败：套餐保留至 {date}",
    subscribe: "订阅{plan}",
    redirecting: "正在打开结账页面…",
    cancel: "取消订阅",
    cancelQuestion: "在本周期结束时取消？",
    cancelYes: "周期结束时取消",
    cancelled: "订阅将在本周期结束时终止。",
    manage: "管理账单",
    notSold:
      "本服务器不出售套餐：每个账号的套餐由运营者设定，这里不会产生任何费用。如需更高额度，请联系本服务器的运营者。",
    invoices: "发票",
    noInvoices: "还没有发票。",
    date: "日期",
    amount: "金额",
    invoiceStatus: "状态",
    view: "查看",
    viewInvoice: "查看 {date} 的发票",
    s_none: "无",
    s_active: "有效",
    s_trialing: "试用中",
    s_past_due: "待付款",
    s_canceled: "已取消",
    s_unpaid: "未付款",
    s_incomplete: "未完成",
    s_incomplete_expired: "已过期",
    s_paused: "已暂停",
  },
  tw: {
    subscription: "訂閱",
    status: "狀態",
    none: "尚未訂閱：目前使用上方顯示的方案。",
    renews: "將於 {date} 續訂",
    ends: "將於 {date} 結束：在此之前方案維持不變",
    grace: "付款失敗：方案保留至 {date}",
    subscribe: "訂閱{plan}",
    redirecting: "正在開啟結帳頁面…",
    cancel: "取消訂閱",
    cancelQuestion: "在本週期結束時取消？",
    cancelYes: "週期結束時取消",
    cancelled: "訂閱將在本週期結束時終止。",
    manage: "管理帳單",
    notSold:
      "本伺服器不販售方案：每個帳號的方案由營運者設定，這裡不會產生任何費用。如需更高額度，請聯絡本伺服器的營運者。",
    invoices: "發票",
    noInvoices: "還沒有發票。",
    date: "日期",
    amount: "金額",
    invoiceStatus: "狀態",
    view: "檢視",
    viewInvoice: "檢視 {date} 的發票",
    s_none: "無",
    s_active: "有效",
    s_trialing: "試用中",
    s_past_due: "待付款",
    s_canceled: "已取消",
    s_unpaid: "未付款",
    s_incomplete: "未完成",
    s_incomplete_expired: "已過期",
    s_paused: "已暫停",
  },
});

interface Subscription {
  plan: string;
  status: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  grace_until: string | null;
  /** Whether plans can be bought here (absent from servers before it was added: then a try tells). */
  billing_enabled?: boolean;
}
interface Invoice {
  id: string;
  amount: number;
  currency: string;
  status: string;
  created_at: string;
  hosted_invoice_url: string | null;
}

const live = new Set(["active", "trialing", "past_due"]);
const statusKeys = [
  "none",
  "active",
  "trialing",
  "past_due",
  "canceled",
  "unpaid",
  "incomplete",
  "incomplete_expired",
  "paused",
] as const;
const statusLabel = (s: string) =>
  (statusKeys as readonly string[]).includes(s) ? t(`s_${s as (typeof statusKeys)[number]}`) : s;

function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(locale() === "en" ? "en" : locale() === "cn" ? "zh-CN" : "zh-TW", {
      style: "currency",
      currency,
    }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

const notConfigured = (e: unknown) => e instanceof ApiError && e.code === "billing_not_configured";

/** Stripe's pages (checkout, portal) are another site: the browser goes there, nothing is fetched. */
function go(url: string) {
  location.assign(url);
}

export function BillingCards({ onChanged }: { onChanged: () => void }) {
  const sub = useLoad(() => call<Subscription>("GET", "/v1/billing/subscription"));
  const invoices = useLoad(() => call<{ items: Invoice[] }>("GET", `/v1/billing/invoices?${pageSize}=20`));
  const [busy, setBusy] = useState(false);
  const [disabled, setDisabled] = useState(false);
  const [notice, setNotice] = useState("");
  const [error, setError] = useState<unknown>();

  async function run(fn: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    setNotice("");
    try {
      await fn();
    } catch (err) {
      if (notConfigured(err)) setDisabled(true);
      else setError(err);
      setBusy(false);
    }
  }
  const subscribe = (plan: "pro" | "business") =>
    run(async () => {
      const r = await call<{ checkout_url: string }>("POST", "/v1/billing/subscribe", { body: { plan } });
      setNotice(t("redirecting"));
      go(r.checkout_url);
    });
  const portal = () =>
    run(async () => {
      const r = await call<{ portal_url: string }>("POST", "/v1/billing/portal");
      go(r.portal_url);
    });

  const s = sub.data;
  const isLive = !!s && live.has(s.status);
  // Billing off: no buttons that can only fail; the page says how plans work here instead.
  const off = disabled || s?.billing_enabled === false;
  return (
    <div class="grid2">
      <Card title={t("subscription")}>
        {sub.error ? (
          <ErrorBox error={sub.error} onRetry={sub.reload} />
        ) : !s ? (
          <Loading />
        ) : (
          <div class="stack">
            <p style={{ margin: 0 }} data-subscription-status={s.status}>
              {t("status")}: <strong>{statusLabel(s.status)}</strong>
              {s.status !== "none" ? ` · ${planLabel(s.plan)}` : ""}
            </p>
            {s.status === "none" ? (
              <p class="muted" style={{ margin: 0 }}>
                {t("none")}
              </p>
            ) : null}
            {s.grace_until ? <p class="warn">{t("grace", { date: formatTime(s.grace_until) })}</p> : null}
            {isLive && s.current_period_end ? (
              <p style={{ margin: 0 }}>
                {t(s.cancel_at_period_end ? "ends" : "renews", { date: formatTime(s.current_period_end) })}
              </p>
            ) : null}
            <div class="row">
              {!isLive && !off
                ? (["pro", "business"] as const).map((p) => (
                    <button type="button" disabled={busy} onClick={() => subscribe(p)}>
                      {t("subscribe", { plan: planLabel(p) })}
                    </button>
                  ))
                : null}
              {isLive && !s.cancel_at_period_end ? (
                <ConfirmButton
                  label={t("cancel")}
                  question={t("cancelQuestion")}
                  yes={t("cancelYes")}
                  onConfirm={() =>
                    run(async () => {
                      await call("POST", "/v1/billing/cancel");
                      setNotice(t("cancelled"));
                      setBusy(false);
                      sub.reload();
                      onChanged();
                    })
                  }
                />
              ) : null}
              {s.status !== "none" && !off ? (
                <button type="button" class="secondary" disabled={busy} onClick={portal}>
                  {t("manage")}
                </button>
              ) : null}
            </div>
            <div role="status">
              {off ? (
                <p class="muted" style={{ margin: 0 }} data-billing="off">
                  {t("notSold")}
                </p>
              ) : null}
              {notice ? <p class="ok">{notice}</p> : null}
            </div>
            <ErrorBox error={error} />
          </div>
        )}
      </Card>
      <Card title={t("invoices")}>
        {invoices.error ? (
          <ErrorBox error={invoices.error} onRetry={invoices.reload} />
        ) : !invoices.data ? (
          <Loading />
        ) : invoices.data.items.length === 0 ? (
          <p class="muted">{t("noInvoices")}</p>
        ) : (
          <DataTable heads={[t("date"), t("amount"), t("invoiceStatus"), t("view")]}>
            {invoices.data.items.map((i) => (
              <tr key={i.id}>
                <td>{formatTime(i.created_at)}</td>
                <td>{money(i.amount, i.currency)}</td>
                <td>{i.status}</td>
                <td>
                  {i.hosted_invoice_url ? (
                    <a
                      href={i.hosted_invoice_url}
                      target="_blank"
                      rel="noopener noreferrer"
                      aria-label={t("viewInvoice", { date: formatTime(i.created_at) })}
                    >
                      {t("view")}
                    </a>
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
    </div>
  );
}
