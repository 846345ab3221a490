import { useState } from "preact/hooks";
import { call, session } from "../api.js";
import { FormError, invalid } from "../components/account-form-error.js";
import { messages } from "../i18n.js";
import { navigate, type Route } from "../router.js";
import { Card, Loading, useLoad } from "../ui.js";

const t = messages({
  en: {
    verifyTitle: "Verify your email address",
    verified: "Your email address {email} is verified.",
    badLink: "This link is invalid, has expired or has been used already.",
    noToken: "Open the link from the message we sent you; it carries what this page needs.",
    continue: "Continue",
    resetTitle: "Reset your password",
    resetIntro:
      "Enter the email address of your account and we will send you a link to choose a new password.",
    email: "Email",
    send: "Send the link",
    sending: "Sending…",
    sent: "If an account uses {email}, a link is on its way. It works once, for 30 minutes.",
    newPassword: "New password (at least 8 characters)",
    setPassword: "Set the new password",
    saving: "Saving…",
    badResetLink: "This link is invalid, has expired or has been used already: ask for a new one.",
    askAgain: "Send a new link",
    changeTitle: "Change your password",
    changeIntro: "Every other place where you are signed in is signed out; this one stays.",
    currentPassword: "Current password",
    change: "Change password",
    changed: "Your password has been changed. Other sessions have been signed out.",
    wrongPassword: "The current password is wrong.",
    tooMany: "Too many wrong passwords: wait a few minutes and try again.",
  },
  cn: {
    verifyTitle: "验证邮箱",
    verified: "你的邮箱 {email} 已验证。",
    badLink: "此链接无效、已过期或已被使用。",
    noToken: "请打开我们发给你的邮件中的链接。",
    continue: "继续",
    resetTitle: "重置密码",
    resetIntro: "输入账号的邮箱，我们会发送一个设置新密码的链接。",
    email: "邮箱",
    send: "发送链接",
    sending: "发送中…",
    sent: "如果 {email} 对应一个账号，链接已在路上。它只能使用一次，30 分钟内有效。",
    newPassword: "新密码（至少 8 个字符）",
    setPassword: "设置新密码",
    saving: "保存中…",
    badResetLink: "此链接无效、已过期或已被使用：请重新申请。",
    askAgain: "重新发送链接",
    changeTitle: "修改密码",
    changeIntro: "其他已登录的地方都会退出登录，当前这里保持登录。",
    currentPassword: "当前密码",
    change: "修改密码",
    changed: "密码已修改，其他会话已退出登录。",
    wrongPassword: "当前密码不正确。",
    tooMany: "错误次数过多：请等几分钟再试。",
  },
  tw: {
    verifyTitle: "驗證電子郵件",
    verified: "你的電子郵件 {email} 已驗證。",
    badLink: "此連結無效、已過期或已被使用。",
    noToken: "請開啟我們寄給你的郵件中的連結。",
    continue: "繼續",
    resetTitle: "重設密碼",
    resetIntro: "輸入帳號的電子郵件，我們會寄送一個設定新密碼的連結。",
    email: "電子郵件",
    send: "寄送連結",
    sending: "寄送中…",
    sent: "如果 {email} 對應一個帳號，連結已在路上。它只能使用一次，30 分鐘內有效。",
    newPassword: "新密碼（至少 8 個字元）",
    setPassword: "設定新密碼",
    saving: "儲存中…",
    badResetLink: "此連結無效、已過期或已被使用：請重新申請。",
    askAgain: "重新寄送連結",
    changeTitle: "變更密碼",
    changeIntro: "其他已登入的地方都會登出，目前這裡保持登入。",
    currentPassword: "目前密碼",
    change: "變更密碼",
    changed: "密碼已變更，其他工作階段已登出。",
    wrongPassword: "目前密碼不正確。",
    tooMany: "錯誤次數過多：請等幾分鐘再試。",
  },
});

/** Whether an API error names `path` (a 400 on that field). */
const names = (error: unknown, path: string) => invalid(error, path) === true;

/** `#/verify-email?token=…`: the verification message's link; the page posts the token at once. */
export function VerifyEmailPage({ route }: { route: Route }) {
  const token = route.query.get("token") ?? "";
  const result = useLoad(
    () =>
      token
        ? call<{ email: string }>("POST", "/v1/auth/verify-email", { body: { token }, auth: false })
        : Promise.resolve(undefined),
    [token],
  );
  const onward = session.token ? "#/monitors" : "#/login";
  return (
    <div>
      <h1>{t("verifyTitle")}</h1>
      {!token ? (
        <p>{t("noToken")}</p>
      ) : result.loading ? (
        <Loading />
      ) : result.data ? (
        <p role="status" data-testid="verified">
          {t("verified", { email: result.data.email })} <a href={onward}>{t("continue")}</a>
        </p>
      ) : (
        <div class="error" role="alert">
          {names(result.error, "body.token") ? t("badLink") : <FormError error={result.error} />}
        </div>
      )}
    </div>
  );
}

function RequestReset() {
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [sentTo, setSentTo] = useState<string>();
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", "/v1/auth/password-reset", { body: { email: email.trim() }, auth: false });
      setSentTo(email.trim());
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  }
  return (
    <Card>
      <p class="muted">{t("resetIntro")}</p>
      <form class="stack" onSubmit={submit} aria-label={t("resetTitle")} noValidate>
        <label>
          {t("email")}
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? t("sending") : t("send")}
          </button>
        </div>
        {sentTo ? (
          <p role="status" data-testid="reset-sent">
            {t("sent", { email: sentTo })}
          </p>
        ) : null}
        <FormError error={error} />
      </form>
    </Card>
  );
}

function ChooseNewPassword({ token }: { token: string }) {
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password }, auth: false });
      // Every session of the account has just been revoked, this browser's too.
      if (session.token) session.clear();
      session.takeEnd();
      navigate("/login?reset=1");
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }
  return (
    <Card>
      <form class="stack" onSubmit={submit} aria-label={t("setPassword")} noValidate>
        <label>
          {t("newPassword")}
          <input
            type="password"
            name="password"
            autocomplete="new-password"
            required
            value={password}
            aria-invalid={invalid(error, "body.password")}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? t("saving") : t("setPassword")}
          </button>
        </div>
        {names(error, "body.token") ? (
          <p class="error" role="alert">
            {t("badResetLink")} <a href="#/reset-password">{t("askAgain")}</a>
          </p>
        ) : (
          <FormError error={error} />
        )}
      </form>
    </Card>
  );
}

/** `#/reset-password`: ask for a reset link; `#/reset-password?token=…` (the link): choose the new password. */
export function ResetPasswordPage({ route }: { route: Route }) {
  const token = route.query.get("token");
  return (
    <div>
      <h1>{t("resetTitle")}</h1>
      {token ? <ChooseNewPassword token={token} /> : <RequestReset />}
    </div>
  );
}

/** `#/password`: change the password (the current one first); other sessions are signed out. */
export function PasswordPage(_props: { route: Route }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(false);
    try {
      await call("POST", "/v1/account/password", {
        body: { current_password: current, new_password: next },
      });
      setDone(true);
      setCurrent("");
      setNext("");
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  }
  return (
    <div>
      <h1>{t("changeTitle")}</h1>
      <Card>
        <p class="muted">{t("changeIntro")}</p>
        <form class="stack" onSubmit={submit} aria-label={t("changeTitle")} noValidate>
          <label>
            {t("currentPassword")}
            <input
              type="password"
              name="current-password"
              autocomplete="current-password"
              required
              value={current}
              aria-invalid={invalid(error, "body.current_password")}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          </label>
          <label>
            {t("newPassword")}
            <input
              type="password"
              name="new-password"
              autocomplete="new-password"
              required
              value={next}
              aria-invalid={invalid(error, "body.new_password")}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
          </label>
          <div>
            <button type="submit" disabled={busy}>
              {busy ? t("saving") : t("change")}
            </button>
          </div>
          {done ? (
            <p role="status" data-testid="password-changed">
              {t("changed")}
            </p>
          ) : null}
          {names(error, "body.current_password") ? (
            <p class="error" role="alert">
              {t("wrongPassword")}
            </p>
          ) : (
            <FormError error={error} hints={{ 429: t("tooMany") }} />
          )}
        </form>
      </Card>
    </div>
  );
}
