import "./styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { form, onSessionChange, session, signOut } from "./api.js";
import { type Locale, locale, locales, messages, setLocale } from "./i18n.js";
import { AccountPage } from "./pages/account.js";
import { AlertsPage } from "./pages/alerts.js";
import { KeysPage } from "./pages/keys.js";
import { LoginPage } from "./pages/login.js";
import { LookupsPage } from "./pages/lookups.js";
import { MonitorPage } from "./pages/monitor.js";
import { MonitorsPage } from "./pages/monitors.js";
import { NodesPage } from "./pages/nodes.js";
import { ProbePage } from "./pages/probe.js";
import { PasswordPage, ResetPasswordPage, VerifyEmailPage } from "./pages/recovery.js";
import { TaskPage } from "./pages/task.js";
import { match, navigate, type Route, usePath } from "./router.js";

const t = messages({
  en: {
    nodes: "Nodes",
    probe: "Probe",
    lookups: "Lookups",
    monitors: "Monitors",
    alerts: "Alerts",
    keys: "API keys",
    account: "Plan & usage",
    login: "Sign in",
    logout: "Sign out",
    password: "Password",
    docs: "API docs",
    language: "Language",
    notFound: "No such page.",
    form: "API form {form}",
    skip: "Skip to content",
    mainNav: "main",
  },
  cn: {
    nodes: "节点",
    probe: "探测",
    lookups: "查询",
    monitors: "监控",
    alerts: "告警",
    keys: "API 密钥",
    account: "套餐与用量",
    login: "登录",
    logout: "退出",
    password: "密码",
    docs: "API 文档",
    language: "语言",
    notFound: "页面不存在。",
    form: "API 形式 {form}",
    skip: "跳到正文",
    mainNav: "主导航",
  },
  tw: {
    nodes: "節點",
    probe: "探測",
    lookups: "查詢",
    monitors: "監控",
    alerts: "告警",
    keys: "API 金鑰",
    account: "方案與用量",
    login: "登入",
    logout: "登出",
    password: "密碼",
    docs: "API 文件",
    language: "語言",
    notFound: "頁面不存在。",
    form: "API 形式 {form}",
    skip: "跳到內容",
    mainNav: "主導覽",
  },
});

/** Every page: its hash pattern, its component, and whether it needs a signed-in session. */
const pages: { pattern: string; page: (p: { route: Route }) => preact.JSX.Element; auth?: true }[] = [
  { pattern: "/", page: NodesPage },
  { pattern: "/probe", page: ProbePage },
  { pattern: "/tasks/:id", page: TaskPage },
  { pattern: "/lookups", page: LookupsPage },
  { pattern: "/login", page: LoginPage },
  { pattern: "/verify-email", page: VerifyEmailPage },
  { pattern: "/reset-password", page: ResetPasswordPage },
  { pattern: "/password", page: PasswordPage, auth: true },
  { pattern: "/keys", page: KeysPage, auth: true },
  { pattern: "/monitors", page: MonitorsPage, auth: true },
  { pattern: "/monitors/:id", page: MonitorPage, auth: true },
  { pattern: "/alerts", page: AlertsPage, auth: true },
  { pattern: "/account", page: AccountPage, auth: true },
];

/** The page as the address names it (path and query), to come back to after signing in. */
function here(): string {
  return location.hash.replace(/^#/, "") || "/";
}

function App() {
  const { path, query } = usePath();
  const [lang, setLang] = useState<Locale>(locale());
  const [signedIn, setSignedIn] = useState(session.token !== null);
  useEffect(() => onSessionChange(() => setSignedIn(session.token !== null)), []);
  setLocale(lang);

  let body: preact.JSX.Element = <p>{t("notFound")}</p>;
  for (const p of pages) {
    const params = match(p.pattern, path);
    if (!params) continue;
    body =
      p.auth && !signedIn ? (
        <LoginPage route={{ path, params: {}, query: new URLSearchParams({ next: here() }) }} />
      ) : (
        <p.page route={{ path, params, query }} />
      );
    break;
  }
  const nav: [string, string, boolean][] = [
    ["#/", t("nodes"), path === "/"],
    ["#/probe", t("probe"), path === "/probe" || path.startsWith("/tasks/")],
    ["#/lookups", t("lookups"), path === "/lookups"],
    ["#/monitors", t("monitors"), path.startsWith("/monitors")],
    ["#/alerts", t("alerts"), path === "/alerts"],
    ["#/keys", t("keys"), path === "/keys"],
    ["#/account", t("account"), path === "/account"],
  ];
  return (
    <div class="shell" key={lang}>
      <button type="button" class="skip" onClick={() => document.getElementById("main")?.focus()}>
        {t("skip")}
      </button>
      <header class="top">
        <a class="brand" href="#/">
          Vantage
        </a>
        <nav aria-label={t("mainNav")}>
          {nav.map(([href, label, active]) => (
            <a href={href} aria-current={active ? "page" : undefined} class={active ? "active" : ""}>
              {label}
            </a>
          ))}
        </nav>
        <div class="top-right">
          <label class="sr-only" for="lang">
            {t("language")}
          </label>
          <select
            id="lang"
            value={lang}
            onChange={(e) => setLang((e.target as HTMLSelectElement).value as Locale)}
          >
            {locales.map((l) => (
              <option value={l}>{l === "en" ? "English" : l === "cn" ? "简体中文" : "繁體中文"}</option>
            ))}
          </select>
          <a href="/docs">{t("docs")}</a>
          {signedIn ? <a href="#/password">{t("password")}</a> : null}
          {signedIn ? (
            <button
              type="button"
              class="link"
              onClick={async () => {
                // The notice on the sign-in page keeps the way back to this page.
                const back = here();
                const revoked = signOut();
                navigate(`/login?next=${encodeURIComponent(back)}`);
                await revoked;
              }}
            >
              {t("logout")}
            </button>
          ) : (
            <a href="#/login">{t("login")}</a>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {body}
      </main>
      <footer class="muted">{t("form", { form: form.toUpperCase() })}</footer>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
