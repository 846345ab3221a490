import { useState } from "preact/hooks";
import { call, type SessionEnd, session } from "../api.js";
import { FieldError, FormError, fieldErrorId, invalid } from "../components/account-form-error.js";
import { messages } from "../i18n.js";
import { navigate, type Route } from "../router.js";
import { Card } from "../ui.js";

const t = messages({
  en: {
    title: "Sign in",
    intro: "Monitors, alerts, API keys and your plan need an account.",
    signIn: "Sign in",
    signingIn: "Signing in…",
    register: "Create an account",
    registering: "Creating…",
    registerButton: "Create account",
    email: "Email",
    password: "Password",
    newPassword: "Password (at least 8 characters)",
    badLogin: "Wrong email or password.",
    taken: "An account with this email exists already: sign in instead.",
    signedInAs: "Signed in as {email}.",
    toMonitors: "Continue",
    haveAccount: "I have an account",
    signedOut: "You are signed out. Sign in again to return to the page you were on.",
    expired: "Your session has ended. Sign in again to return to the page you were on.",
    passwordReset: "Your password has been changed. Sign in with the new one.",
    accountDeleted:
      "Your account has been deleted, with everything it held. A confirmation is on its way by email.",
    forgot: "Forgot your password?",
  },
  cn: {
    title: "登录",
    intro: "监控、告警、API 密钥和套餐需要账号。",
    signIn: "登录",
    signingIn: "登录中…",
    register: "注册账号",
    registering: "注册中…",
    registerButton: "注册",
    email: "邮箱",
    password: "密码",
    newPassword: "密码（至少 8 个字符）",
    badLogin: "邮箱或密码错误。",
    taken: "该邮箱已注册：请直接登录。",
    signedInAs: "已登录：{email}。",
    toMonitors: "继续",
    haveAccount: "已有账号",
    signedOut: "你已退出登录。重新登录后将回到刚才的页面。",
    expired: "登录已失效。重新登录后将回到刚才的页面。",
    passwordReset: "密码已修改，请用新密码登录。",
    accountDeleted: "你的账号及其中的一切已删除。确认邮件已在路上。",
    forgot: "忘记密码？",
  },
  tw: {
    title: "登入",
    intro: "監控、告警、API 金鑰和方案需要帳號。",
    signIn: "登入",
    signingIn: "登入中…",
    register: "註冊帳號",
    registering: "註冊中…",
    registerButton: "註冊",
    email: "電子郵件",
    password: "密碼",
    newPassword: "密碼（至少 8 個字元）",
    badLogin: "電子郵件或密碼錯誤。",
    taken: "此電子郵件已註冊：請直接登入。",
    signedInAs: "已登入：{email}。",
    toMonitors: "繼續",
    haveAccount: "已有帳號",
    signedOut: "你已登出。重新登入後將回到剛才的頁面。",
    expired: "登入已失效。重新登入後將回到剛才的頁面。",
    passwordReset: "密碼已變更，請用新密碼登入。",
    accountDeleted: "你的帳號及其中的一切已刪除。確認郵件已在路上。",
    forgot: "忘記密碼？",
  },
});

interface Token {
  access_token: string;
  expires_in: number;
}

/** Pages not to come back to after signing in: this one, and those whose token was spent. */
const noReturn = ["/login", "/verify-email", "/reset-password"];

/**
 * Only a path inside the dashboard (`/keys`, `/probe?task=…`), never another origin (`//x`), is followed
 * after sign-in.
 */
function nextPath(query: URLSearchParams): string {
  const next = query.get("next") ?? "";
  const ok =
    next.startsWith("/") && !next.startsWith("//") && !noReturn.some((p) => next.split("?")[0] === p);
  return ok ? next : "/monitors";
}

function AuthForm({
  kind,
  onDone,
}: {
  kind: "login" | "register";
  onDone: (token: string, email: string, expiresIn: number) => void;
}) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const register = kind === "register";
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const address = email.trim();
      const tok = await call<Token>("POST", register ? "/v1/auth/register" : "/v1/auth/login", {
        // The cookie keeps the dashboard signed in past the token's 15 minutes (api.ts renews it).
        body: { email: address, password, refresh_cookie: true },
        auth: false,
      });
      onDone(tok.access_token, address, tok.expires_in);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }
  return (
    <form class="stack" onSubmit={submit} aria-label={register ? t("register") : t("signIn")} noValidate>
      <label>
        {t("email")}
        <input
          type="email"
          name="email"
          autocomplete={register ? "email" : "username"}
          required
          value={email}
          aria-invalid={invalid(error, "body.email")}
          aria-describedby={invalid(error, "body.email") && fieldErrorId("body.email")}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.email" />
      </label>
      <label>
        {register ? t("newPassword") : t("password")}
        <input
          type="password"
          name="password"
          autocomplete={register ? "new-password" : "current-password"}
          required
          value={password}
          aria-invalid={invalid(error, "body.password")}
          aria-describedby={invalid(error, "body.password") && fieldErrorId("body.password")}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <FieldError error={error} path="body.password" />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy
            ? register
              ? t("registering")
              : t("signingIn")
            : register
              ? t("registerButton")
              : t("signIn")}
        </button>
      </div>
      <FormError
        error={error}
        hints={register ? { 409: t("taken") } : { 401: t("badLogin") }}
        placed={["body.email", "body.password"]}
      />
      {register ? null : (
        <p>
          <a href="#/reset-password">{t("forgot")}</a>
        </p>
      )}
    </form>
  );
}

/**
 * `#/login`: sign in or create an account; then on to `?next=` (or the monitors). Shown in place of a page
 * that needs an account, it says why the session ended (signed out, or it could not be renewed).
 */
export function LoginPage({ route }: { route: Route }) {
  const next = nextPath(route.query);
  const [ended] = useState<SessionEnd | undefined>(() => session.takeEnd());
  const done = (token: string, email: string, expiresIn: number) => {
    session.set(token, email, expiresIn);
    navigate(next);
  };
  const notice =
    route.query.get("reset") === "1"
      ? t("passwordReset")
      : route.query.get("deleted") === "1"
        ? t("accountDeleted")
        : ended
          ? t(ended === "signed_out" ? "signedOut" : "expired")
          : "";
  return (
    <div>
      <h1>{t("title")}</h1>
      {notice ? (
        <p class="card notice" role="status" data-testid="session-notice">
          {notice}
        </p>
      ) : null}
      <p class="muted">{t("intro")}</p>
      {session.token && session.email ? (
        <p role="status">
          {t("signedInAs", { email: session.email })} <a href={`#${next}`}>{t("toMonitors")}</a>
        </p>
      ) : null}
      <div class="grid2">
        <Card title={t("haveAccount")}>
          <AuthForm kind="login" onDone={done} />
        </Card>
        <Card title={t("register")}>
          <AuthForm kind="register" onDone={done} />
        </Card>
      </div>
    </div>
  );
}
