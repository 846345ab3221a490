import { pastedHost } from "@vantage/protocol/pasted-host";
import { useEffect, useRef, useState } from "preact/hooks";
import { call, form } from "../api.js";
import { ApiErrorBox } from "../components/api-error.js";
import {
  type DnsInfo,
  DnsView,
  type IcpInfo,
  IcpView,
  type WhoisInfo,
  WhoisView,
} from "../components/domain-views.js";
import { type IpInfo, IpView } from "../components/ip-view.js";
import { type LookupInput, type LookupKind, lookupKinds, lookupPath } from "../components/lookup-request.js";
import { RawJson } from "../components/raw-json.js";
import { type Reputation, ReputationView } from "../components/reputation-view.js";
import { type SslInfo, SslView } from "../components/ssl-view.js";
import { messages } from "../i18n.js";
import "../public.css";
import { navigate, type Route } from "../router.js";
import { Card, Loading } from "../ui.js";

const t = messages({
  en: {
    title: "Lookups",
    tabs: "Lookup type",
    ip: "IP info",
    whois: "WHOIS",
    ssl: "SSL/TLS audit",
    dns: "DNS records",
    icp: "ICP",
    reputation: "IP reputation",
    ipLabel: "IP address",
    ipOwn: "IP address (blank: your own)",
    whoisLabel: "Domain or IP address",
    sslLabel: "Domain, domain:port or URL",
    portClash: "The domain names port {n} and the Port field another: keep one.",
    port: "Port",
    dnsLabel: "Domain",
    type: "Record type",
    allTypes: "All types",
    icpLabel: "Domain",
    reputationLabel: "IP address or domain",
    go: "Look up",
    result: "Result",
    ipHelp: "Country, AS and organisation of an address, from data shipped with the server (no network).",
    whoisHelp: "Registrar, expiry and name servers (RDAP first, then WHOIS).",
    sslHelp: "Real TLS handshakes with the server: certificate, versions, HSTS, and a grade.",
    dnsHelp: "The records of a name, from the server's resolver.",
    icpHelp: "The ICP filing of a site served in mainland China.",
    reputationHelp: "A risk score from transparent signals (Tor, hosting, VPN ranges, DNS blocklists).",
  },
  cn: {
    title: "查询",
    tabs: "查询类型",
    ip: "IP 信息",
    whois: "WHOIS",
    ssl: "SSL/TLS 检测",
    dns: "DNS 记录",
    icp: "ICP 备案",
    reputation: "IP 信誉",
    ipLabel: "IP 地址",
    ipOwn: "IP 地址（留空：查询您自己的地址）",
    whoisLabel: "域名或 IP 地址",
    sslLabel: "域名、域名:端口或 URL",
    portClash: "域名中写了端口 {n}，端口栏却是另一个：请只保留一个。",
    port: "端口",
    dnsLabel: "域名",
    type: "记录类型",
    allTypes: "全部类型",
    icpLabel: "域名",
    reputationLabel: "IP 地址或域名",
    go: "查询",
    result: "结果",
    ipHelp: "地址所属国家、AS 与组织，来自服务器自带的数据（不联网）。",
    whoisHelp: "注册商、到期时间与域名服务器（先 RDAP，后 WHOIS）。",
    sslHelp: "与服务器真实握手：证书、TLS 版本、HSTS 与评级。",
    dnsHelp: "域名的各类记录，经服务器的解析器查询。",
    icpHelp: "在中国大陆提供服务的网站的 ICP 备案。",
    reputationHelp: "基于透明信号（Tor、机房、VPN 网段、DNS 黑名单）的风险评分。",
  },
  tw: {
    title: "查詢",
    tabs: "查詢類型",
    ip: "IP 資訊",
    whois: "WHOIS",
    ssl: "SSL/TLS 檢測",
    dns: "DNS 記錄",
    icp: "ICP 備案",
    reputation: "IP 信譽",
    ipLabel: "IP 位址",
    ipOwn: "IP 位址（留空：查詢您自己的位址）",
    whoisLabel: "網域或 IP 位址",
    sslLabel: "網域、網域:連接埠或 URL",
    portClash: "網域中寫了連接埠 {n}，連接埠欄卻是另一個：請只保留一個。",
    port: "連接埠",
    dnsLabel: "網域",
    type: "記錄類型",
    allTypes: "全部類型",
    icpLabel: "網域",
    reputationLabel: "IP 位址或網域",
    go: "查詢",
    result: "結果",
    ipHelp: "位址所屬國家、AS 與組織，來自伺服器內建的資料（不連網）。",
    whoisHelp: "註冊商、到期時間與名稱伺服器（先 RDAP，後 WHOIS）。",
    sslHelp: "與伺服器實際交握：憑證、TLS 版本、HSTS 與評級。",
    dnsHelp: "網域的各類記錄，經伺服器的解析器查詢。",
    icpHelp: "在中國大陸提供服務的網站的 ICP 備案。",
    reputationHelp: "基於透明訊號（Tor、機房、VPN 網段、DNS 黑名單）的風險評分。",
  },
});

const dnsTypes = ["A", "AAAA", "MX", "TXT", "NS", "CNAME", "SOA"];

const fromQuery = (q: URLSearchParams): LookupInput => ({
  q: q.get("q") ?? "",
  port: q.get("port") ?? "",
  type: q.get("type") ?? "",
});

/**
 * `#/lookups?tab=<kind>&q=…`: one tab per lookup. The query is the state, so a lookup is a link; a
 * lookup runs when the query holds `q` (Form B's own-address IP lookup: `q` blank).
 */
export function LookupsPage({ route }: { route: Route }) {
  const kind = lookupKinds.find((k) => k === route.query.get("tab")) ?? "ip";
  const asked = route.query.has("q") ? fromQuery(route.query) : undefined;
  const [input, setInput] = useState<LookupInput>(asked ?? { q: "", port: "", type: "" });
  const [again, setAgain] = useState(0);
  const [inputError, setInputError] = useState("");
  const [result, setResult] = useState<{
    kind: LookupKind;
    data?: unknown;
    error?: unknown;
    loading: boolean;
  }>();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const key = asked ? lookupPath(kind, asked, form) : "";

  useEffect(() => {
    if (asked) setInput(asked);
  }, [route.query.toString()]);

  useEffect(() => {
    if (!key) {
      setResult(undefined);
      return;
    }
    let live = true;
    setResult({ kind, loading: true });
    call<unknown>("GET", key).then(
      (data) => live && setResult({ kind, data, loading: false }),
      (error: unknown) => live && setResult({ kind, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [key, again]);

  const select = (k: LookupKind, focus = false) => {
    setInput({ q: "", port: "", type: "" });
    setInputError("");
    navigate(`/lookups?tab=${k}`);
    if (focus) tabs.current[lookupKinds.indexOf(k)]?.focus();
  };
  const onTabKey = (e: KeyboardEvent) => {
    const i = lookupKinds.indexOf(kind);
    const n = lookupKinds.length;
    const to =
      e.key === "ArrowRight"
        ? (i + 1) % n
        : e.key === "ArrowLeft"
          ? (i - 1 + n) % n
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? n - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    select(lookupKinds[to]!, true);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    setInputError("");
    // A pasted URL or host:port stands for its host; the SSL audit also takes its port (the API's `q` is a
    // bare domain and `port` apart, as the spec has them).
    const typed = input.q.trim();
    const pasted = typed === "" ? { host: "" } : pastedHost(typed);
    let port = input.port.trim();
    if (kind === "ssl" && pasted.port !== undefined) {
      if (port !== "" && Number(port) !== pasted.port) {
        setInputError(t("portClash", { n: pasted.port }));
        return;
      }
      port = String(pasted.port);
    }
    const p = new URLSearchParams({ tab: kind, q: pasted.host });
    if (kind === "ssl" && port) p.set("port", port);
    if (kind === "dns" && input.type) p.set("type", input.type);
    const next = `/lookups?${p}`;
    if (location.hash === `#${next}`) setAgain((x) => x + 1);
    else navigate(next);
  };
  const set = (k: keyof LookupInput) => (e: Event) =>
    setInput((v) => ({ ...v, [k]: (e.currentTarget as HTMLInputElement).value }));
  const optional = kind === "ip" && form === "b";
  const label = kind === "ip" ? (optional ? t("ipOwn") : t("ipLabel")) : t(`${kind}Label` as "whoisLabel");

  return (
    <>
      <h1>{t("title")}</h1>
      <div role="tablist" aria-label={t("tabs")} class="row tabs">
        {lookupKinds.map((k, i) => (
          <button
            key={k}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${k}`}
            aria-selected={k === kind}
            aria-controls="lookup-panel"
            tabIndex={k === kind ? 0 : -1}
            class={k === kind ? "" : "secondary"}
            onClick={() => select(k)}
            onKeyDown={onTabKey}
          >
            {t(k)}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="lookup-panel" aria-labelledby={`tab-${kind}`}>
        <Card>
          <p class="muted flush">{t(`${kind}Help` as "ipHelp")}</p>
          <form class="stack" onSubmit={submit}>
            <div class="row">
              <label class="grow">
                {label}
                <input
                  name="q"
                  required={!optional}
                  maxLength={1024}
                  autoComplete="off"
                  autoCapitalize="off"
                  spellcheck={false}
                  value={input.q}
                  onInput={set("q")}
                />
              </label>
              {kind === "ssl" ? (
                <label class="port">
                  {t("port")}
                  <input
                    type="number"
                    min={1}
                    max={65535}
                    placeholder="443"
                    value={input.port}
                    onInput={set("port")}
                  />
                </label>
              ) : null}
              {kind === "dns" ? (
                <label>
                  {t("type")}
                  <select value={input.type} onChange={set("type")}>
                    <option value="">{t("allTypes")}</option>
                    {dnsTypes.map((d) => (
                      <option key={d} value={d}>
                        {d}
                      </option>
                    ))}
                  </select>
                </label>
              ) : null}
              <button type="submit">{t("go")}</button>
            </div>
            {inputError ? (
              <p class="error" role="alert">
                {inputError}
              </p>
            ) : null}
          </form>
        </Card>
        {result ? (
          <Card title={t("result")}>
            <div aria-live="polite" data-testid="lookup-result">
              {result.loading ? <Loading /> : null}
              <ApiErrorBox error={result.error} onRetry={() => setAgain((x) => x + 1)} />
              {result.data ? <LookupView kind={result.kind} data={result.data} /> : null}
            </div>
            {result.data ? <RawJson value={result.data} /> : null}
          </Card>
        ) : null}
      </div>
    </>
  );
}

function LookupView({ kind, data }: { kind: LookupKind; data: unknown }) {
  switch (kind) {
    case "ip":
      return <IpView d={data as IpInfo} />;
    case "whois":
      return <WhoisView d={data as WhoisInfo} />;
    case "ssl":
      return <SslView d={data as SslInfo} />;
    case "dns":
      return <DnsView d={data as DnsInfo} />;
    case "icp":
      return <IcpView d={data as IcpInfo} />;
    case "reputation":
      return <ReputationView d={data as Reputation} />;
  }
}
