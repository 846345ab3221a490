import { formatDuration, formatNumber, formatTime, formatUnit, messages } from "../i18n.js";
import { DataTable } from "../ui.js";
import { Badge, Facts } from "./facts.js";
import { capReasonText, findingText } from "./ssl-findings.js";

const t = messages({
  en: {
    grade: "Grade {g}",
    ifTrusted: "{g} if the certificate were trusted",
    valid: "Certificate valid",
    invalid: "Certificate not valid",
    host: "Server",
    subject: "Subject",
    issuer: "Issuer",
    validity: "Valid",
    expiresIn: "{n} days left",
    expired: "expired {n} days ago",
    names: "Names",
    protocol: "Protocol",
    cipher: "Cipher suite",
    keyExchange: "Key exchange",
    ocsp: "OCSP",
    sct: "Certificate Transparency",
    scts: "{n} SCTs",
    hsts: "HSTS",
    noHsts: "not sent",
    maxAge: "max-age {d}",
    subdomains: "includeSubDomains",
    preload: "preload",
    versions: "TLS versions",
    version: "Version",
    status: "Status",
    offered: "Offered",
    not_offered: "Not offered",
    unknown: "Unknown",
    warnings: "Findings",
    noWarnings: "No findings.",
    scores: "Scores",
    protocolScore: "Protocol",
    kxScore: "Key exchange",
    cipherScore: "Cipher strength",
    total: "Total",
    caps: "Capped at {g}: {reason}",
    chain: "Certificate chain",
    key: "Key",
    signature: "Signature",
    ca: "CA",
    info: "info",
    warning: "warning",
    critical: "critical",
  },
  cn: {
    grade: "评级 {g}",
    ifTrusted: "若证书受信任则为 {g}",
    valid: "证书有效",
    invalid: "证书无效",
    host: "服务器",
    subject: "主体",
    issuer: "颁发者",
    validity: "有效期",
    expiresIn: "剩余 {n} 天",
    expired: "已过期 {n} 天",
    names: "域名",
    protocol: "协议",
    cipher: "加密套件",
    keyExchange: "密钥交换",
    ocsp: "OCSP",
    sct: "证书透明度",
    scts: "{n} 个 SCT",
    hsts: "HSTS",
    noHsts: "未发送",
    maxAge: "max-age {d}",
    subdomains: "includeSubDomains",
    preload: "preload",
    versions: "TLS 版本",
    version: "版本",
    status: "状态",
    offered: "支持",
    not_offered: "不支持",
    unknown: "未知",
    warnings: "发现的问题",
    noWarnings: "没有发现问题。",
    scores: "得分",
    protocolScore: "协议",
    kxScore: "密钥交换",
    cipherScore: "加密强度",
    total: "总分",
    caps: "上限 {g}：{reason}",
    chain: "证书链",
    key: "密钥",
    signature: "签名",
    ca: "CA",
    info: "提示",
    warning: "警告",
    critical: "严重",
  },
  tw: {
    grade: "評級 {g}",
    ifTrusted: "若憑證受信任則為 {g}",
    valid: "憑證有效",
    invalid: "憑證無效",
    host: "伺服器",
    subject: "主體",
    issuer: "簽發者",
    validity: "有效期",
    expiresIn: "剩餘 {n} 天",
    expired: "已過期 {n} 天",
    names: "網域",
    protocol: "協定",
    cipher: "加密套件",
    keyExchange: "金鑰交換",
    ocsp: "OCSP",
    sct: "憑證透明度",
    scts: "{n} 個 SCT",
    hsts: "HSTS",
    noHsts: "未傳送",
    maxAge: "max-age {d}",
    subdomains: "includeSubDomains",
    preload: "preload",
    versions: "TLS 版本",
    version: "版本",
    status: "狀態",
    offered: "支援",
    not_offered: "不支援",
    unknown: "未知",
    warnings: "發現的問題",
    noWarnings: "沒有發現問題。",
    scores: "得分",
    protocolScore: "協定",
    kxScore: "金鑰交換",
    cipherScore: "加密強度",
    total: "總分",
    caps: "上限 {g}：{reason}",
    chain: "憑證鏈",
    key: "金鑰",
    signature: "簽章",
    ca: "CA",
    info: "提示",
    warning: "警告",
    critical: "嚴重",
  },
});

export interface SslInfo {
  domain: string;
  port: number;
  address: string;
  issuer: string;
  subject: string;
  not_before: string;
  not_after: string;
  san_domains: string[];
  protocol: string;
  days_until_expiry: number;
  valid: boolean;
  grade: string;
  grade_if_trusted: string;
  grade_details: {
    protocol_score: number;
    key_exchange_score: number;
    cipher_strength_score: number;
    score: number;
    caps: { grade: string; reason: string }[];
  };
  cipher_suite: string;
  key_exchange: { type: string; name: string | null; bits: number } | null;
  ocsp_status: string;
  sct_count: number;
  tls_versions: {
    version: string;
    supported: boolean;
    status: "offered" | "not_offered" | "unknown";
    cipher_suite: string | null;
  }[];
  hsts: { header: string | null; max_age: number | null; include_subdomains: boolean; preload: boolean };
  warnings: { code: string; severity: "info" | "warning" | "critical"; message: string }[];
  chain: {
    subject: string;
    issuer: string;
    not_after: string;
    signature_algorithm: string;
    public_key_algorithm: string;
    public_key_bits: number;
    is_ca: boolean;
  }[];
  cached: boolean;
}

const ocspNames = messages({
  en: {
    good: "good (stapled)",
    revoked: "revoked",
    unknown: "unknown to the responder",
    not_stapled: "not stapled",
    no_ocsp_url: "no OCSP responder named",
    error: "stapled answer does not verify",
  },
  cn: {
    good: "正常（已装订）",
    revoked: "已吊销",
    unknown: "响应方未知",
    not_stapled: "未装订",
    no_ocsp_url: "未指定 OCSP 响应方",
    error: "装订的应答无法验证",
  },
  tw: {
    good: "正常（已裝訂）",
    revoked: "已撤銷",
    unknown: "回應方未知",
    not_stapled: "未裝訂",
    no_ocsp_url: "未指定 OCSP 回應方",
    error: "裝訂的回應無法驗證",
  },
});
const ocsp = (s: string) => `${ocspNames(s as "good")}`;

export const gradeTone = (g: string) => (g.startsWith("A") ? "ok" : g === "B" || g === "C" ? "warn" : "bad");

/** The SSL/TLS audit: the grade first and large, then what it rests on. */
export function SslView({ d }: { d: SslInfo }) {
  const hsts = d.hsts.header
    ? [
        d.hsts.max_age !== null ? t("maxAge", { d: formatDuration(d.hsts.max_age) }) : null,
        d.hsts.include_subdomains ? t("subdomains") : null,
        d.hsts.preload ? t("preload") : null,
      ]
        .filter(Boolean)
        .join(" · ")
    : t("noHsts");
  const kx = d.key_exchange
    ? `${d.key_exchange.type}${d.key_exchange.name ? ` ${d.key_exchange.name}` : ""} (${formatUnit(d.key_exchange.bits, "bits")})`
    : null;
  return (
    <>
      <div class="verdict">
        <Badge tone={gradeTone(d.grade)} label={t("grade", { g: d.grade })}>
          {d.grade}
        </Badge>
        <div>
          <strong class={d.valid ? "ok" : "bad"}>{d.valid ? t("valid") : t("invalid")}</strong>
          {d.grade_if_trusted !== d.grade ? (
            <div class="muted">{t("ifTrusted", { g: d.grade_if_trusted })}</div>
          ) : null}
          <div class="muted">
            {d.days_until_expiry >= 0
              ? t("expiresIn", { n: d.days_until_expiry })
              : t("expired", { n: -d.days_until_expiry })}
          </div>
        </div>
      </div>
      <Facts
        rows={[
          [t("host"), <code>{`${d.domain}:${d.port} (${d.address})`}</code>],
          [t("subject"), d.subject],
          [t("issuer"), d.issuer],
          [t("validity"), `${formatTime(d.not_before)} – ${formatTime(d.not_after)}`],
          [t("names"), d.san_domains.join(", ")],
          [t("protocol"), d.protocol],
          [t("cipher"), d.cipher_suite],
          [t("keyExchange"), kx],
          [t("ocsp"), ocsp(d.ocsp_status)],
          [t("sct"), t("scts", { n: d.sct_count })],
          [t("hsts"), hsts],
        ]}
      />
      <h3 class="subhead">{t("warnings")}</h3>
      {d.warnings.length === 0 ? (
        <p class="muted">{t("noWarnings")}</p>
      ) : (
        <ul class="list">
          {d.warnings.map((w) => (
            <li key={w.code}>
              <strong class={w.severity === "critical" ? "bad" : w.severity === "warning" ? "warn" : "muted"}>
                {t(w.severity)}
              </strong>{" "}
              <span title={w.message} data-code={w.code}>
                {findingText(w)}
              </span>
            </li>
          ))}
        </ul>
      )}
      <h3 class="subhead">{t("versions")}</h3>
      <DataTable heads={[t("version"), t("status"), t("cipher")]}>
        {d.tls_versions.map((v) => (
          <tr key={v.version}>
            <td>{v.version}</td>
            <td>{t(v.status)}</td>
            <td class="anywhere">{v.cipher_suite ?? "—"}</td>
          </tr>
        ))}
      </DataTable>
      <h3 class="subhead">{t("scores")}</h3>
      <Facts
        rows={[
          [t("protocolScore"), formatNumber(d.grade_details.protocol_score)],
          [t("kxScore"), formatNumber(d.grade_details.key_exchange_score)],
          [t("cipherScore"), formatNumber(d.grade_details.cipher_strength_score)],
          [t("total"), formatNumber(d.grade_details.score)],
        ]}
      />
      {d.grade_details.caps.length ? (
        <ul class="list">
          {d.grade_details.caps.map((c, i) => (
            <li key={i} title={c.reason}>
              {t("caps", { g: c.grade, reason: capReasonText(c.reason) })}
            </li>
          ))}
        </ul>
      ) : null}
      {d.chain.length ? (
        <>
          <h3 class="subhead">{t("chain")}</h3>
          <ol class="list">
            {d.chain.map((c, i) => (
              <li key={i}>
                {c.subject}
                {c.is_ca ? <span class="muted"> ({t("ca")})</span> : null}
                <div class="muted">
                  {t("issuer")}: {c.issuer} · {t("key")}: {c.public_key_algorithm}{" "}
                  {formatUnit(c.public_key_bits, "bits")} · {t("signature")}: {c.signature_algorithm} ·{" "}
                  {formatTime(c.not_after)}
                </div>
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
}
