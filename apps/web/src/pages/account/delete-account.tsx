import { useState } from "preact/hooks";
import { call, session } from "../../api.js";
import { FormError, invalid } from "../../components/account-form-error.js";
import { messages } from "../../i18n.js";
import { navigate } from "../../router.js";
import { Card } from "../../ui.js";

const t = messages({
  en: {
    title: "Delete account",
    intro:
      "Deleting your account removes it for good, at once: your monitors and their history, alert channels " +
      "and policies, status pages, probe results and share links, API keys and tokens. A paid subscription " +
      "is cancelled now, with no further charge. This cannot be undone.",
    password: "Password",
    confirm: "Type your email address ({email}) to confirm",
    mismatch: "Type the email address of this account exactly.",
    submit: "Delete my account",
    deleting: "Deleting…",
    wrongPassword: "The password is wrong.",
    tooMany: "Too many wrong passwords: wait a few minutes and try again.",
    provider:
      "The payment provider could not cancel your subscription, so nothing was deleted. Try again later.",
  },
  cn: {
    title: "删除账号",
    intro:
      "删除账号会立即永久移除：你的监控及其历史、告警渠道和策略、状态页、探测结果和分享链接、API 密钥和令牌。" +
      "付费订阅会立即取消，不再扣费。此操作无法撤销。",
    password: "密码",
    confirm: "输入你的邮箱（{email}）以确认",
    mismatch: "请准确输入此账号的邮箱。",
    submit: "删除我的账号",
    deleting: "删除中…",
    wrongPassword: "密码不正确。",
    tooMany: "错误次数过多：请等几分钟再试。",
    provider: "支付服务商未能取消你的订阅，因此没有删除任何内容。请稍后再试。",
  },
  tw: {
    title: "刪除帳號",
    intro:
      "刪除帳號會立即永久移除：你的監控及其歷史、告警管道和策略、狀態頁、探測結果和分享連結、API 金鑰和權杖。" +
      "付費訂閱會立即取消，不再扣款。此操作無法復原。",
    password: "密碼",
    confirm: "輸入你的電子郵件（{email}）以確認",
    mismatch: "請準確輸入此帳號的電子郵件。",
    submit: "刪除我的帳號",
    deleting: "刪除中…",
    wrongPassword: "密碼不正確。",
    tooMany: "錯誤次數過多：請等幾分鐘再試。",
    provider: "付款服務商未能取消你的訂閱，因此沒有刪除任何內容。請稍後再試。",
  },
});

/** Addresses compare as the account stores them: trimmed, the domain in lower case. */
const normal = (email: string) => {
  const e = email.trim();
  const at = e.lastIndexOf("@");
  return at < 0 ? e : e.slice(0, at) + e.slice(at).toLowerCase();
};

/**
 * The Account page's last card: deletes the account (`DELETE /v1/account`) with its password, once the
 * address is typed again; then the session is forgotten here and the sign-in page says what happened.
 */
export function DeleteAccountCard() {
  const email = session.email ?? "";
  const [password, setPassword] = useState("");
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const confirmed = email !== "" && normal(typed) === normal(email);
  async function submit(e: Event) {
    e.preventDefault();
    if (!confirmed) return;
    setBusy(true);
    setError(undefined);
    try {
      await call("DELETE", "/v1/account", { body: { password } });
      session.clear("signed_out");
      navigate("/login?deleted=1");
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }
  return (
    <Card title={t("title")}>
      <p class="muted">{t("intro")}</p>
      <form class="stack" onSubmit={submit} aria-label={t("title")} noValidate>
        <label>
          {t("password")}
          <input
            type="password"
            name="delete-password"
            autocomplete="current-password"
            required
            value={password}
            aria-invalid={invalid(error, "body.password")}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <label>
          {t("confirm", { email })}
          <input
            type="email"
            name="delete-confirm-email"
            autocomplete="off"
            required
            value={typed}
            aria-invalid={typed !== "" && !confirmed ? true : undefined}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </label>
        {typed !== "" && !confirmed ? <p class="muted">{t("mismatch")}</p> : null}
        <div>
          <button type="submit" class="danger" disabled={busy || !confirmed || password === ""}>
            {busy ? t("deleting") : t("submit")}
          </button>
        </div>
        {invalid(error, "body.password") ? (
          <p class="error" role="alert">
            {t("wrongPassword")}
          </p>
        ) : (
          <FormError error={error} hints={{ 429: t("tooMany"), 502: t("provider"), 504: t("provider") }} />
        )}
      </form>
    </Card>
  );
}
