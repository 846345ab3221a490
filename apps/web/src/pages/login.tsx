import { useState } from "preact/hooks";
import { call, session } from "../api.js";
import { FormError, invalid } from "../components/account-form-error.js";
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
  },
});

interface Token {
  access_token: string;
}

/** Only a path inside the dashboard (`/keys`), never another origin (`//x`), is followed after sign-in. */
function nextPath(query: URLSearchParams): string {
  const next = query.get("next") ?? "";
  return next.startsWith("/") && !next.startsWith("//") && next !== "/login" ? next : "/monitors";
}

function AuthForm({
  kind,
  onDone,
}: {
  kind: "login" | "register";
  onDone: (token: string, email: string) => void;
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
        body: { email: address, password },
        auth: false,
      });
      onDone(tok.access_token, address);
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
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
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
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
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
      <FormError error={error} hints={register ? { 409: t("taken") } : { 401: t("badLogin") }} />
    </form>
  );
}

/** `#/login`: sign in or create an account; then on to `?next=` (or the monitors). */
export function LoginPage({ route }: { route: Route }) {
  const next = nextPath(route.query);
  const done = (token: string, email: string) => {
    session.set(token, email);
    navigate(next);
  };
  return (
    <div>
      <h1>{t("title")}</h1>
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
