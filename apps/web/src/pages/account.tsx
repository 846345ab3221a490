import { call } from "../api.js";
import { messages } from "../i18n.js";
import type { Route } from "../router.js";
import { useLoad } from "../ui.js";
import { BillingCards } from "./account/billing.js";
import { DeleteAccountCard } from "./account/delete-account.js";
import { type Usage, UsageCards } from "./account/usage.js";

const t = messages({
  en: { title: "Plan & usage" },
  cn: { title: "套餐与用量" },
  tw: { title: "方案與用量" },
});

/**
 * `#/account`: the plan and this period's use against its limits, the subscription and its invoices; last,
 * deleting the account.
 */
export function AccountPage(_props: { route: Route }) {
  const usage = useLoad(() => call<Usage>("GET", "/v1/account/usage"));
  return (
    <div>
      <h1>{t("title")}</h1>
      <UsageCards usage={usage} />
      <BillingCards onChanged={usage.reload} />
      <DeleteAccountCard />
    </div>
  );
}
