/**
 * The SSL audit's findings and grade-cap reasons in the current locale. The API gives each finding a
 * stable code (packages/lookups/src/tls/warnings.ts) and an English message whose figures (days, bits,
 * dates) are read back out of it here; a cap carries only its English reason, matched by its pattern. A
 * finding or reason this table does not know stays as the API wrote it.
 */
import { formatDuration, formatNumber, formatTime, messages } from "../i18n.js";

export const sslFindingTexts = {
  en: {
    cert_expired: "The certificate expired on {date}.",
    cert_expiring_soon: "The certificate expires in {n} days.",
    cert_not_yet_valid: "The certificate is not valid before {date}.",
    name_mismatch: "The certificate is not for this name.",
    self_signed: "The certificate is self-signed.",
    untrusted_root: "The chain leads to a root that is not trusted.",
    incomplete_chain:
      "The server does not send the whole chain: clients that do not fetch missing intermediates fail.",
    cert_revoked: "The stapled OCSP answer says the certificate is revoked.",
    ocsp_staple_invalid: "The stapled OCSP answer does not verify.",
    weak_signature: "{subject} is signed with {algorithm}, which is weak.",
    weak_key: "The {algorithm} key has only {bits} bits.",
    tls1_0_enabled: "TLS 1.0 is offered (deprecated, RFC 8996).",
    tls1_1_enabled: "TLS 1.1 is offered (deprecated, RFC 8996).",
    no_tls1_2: "TLS 1.2 is not offered.",
    no_tls1_3: "TLS 1.3 is not offered.",
    tls_version_unknown: "{version} could not be tested (no answer in time): counted as not offered.",
    no_forward_secrecy: "No negotiated cipher suite has forward secrecy.",
    no_aead: "No negotiated cipher suite is AEAD.",
    no_hsts: "No Strict-Transport-Security header.",
    hsts_short_max_age: "HSTS max-age is {duration}, under 180 days.",
    capKeyTooSmall: "key exchange scores {n} (key too small)",
    capWeakKey: "key exchange scores {n} (weak key)",
    capWeakCipher: "a cipher suite under 112 bits can be negotiated",
    capSignedWith: "a certificate is signed with {algorithm}",
    capNoTls12: "TLS 1.2 is not offered",
    capLegacy: "{version} is offered",
    capNoForwardSecrecy: "no forward secrecy",
    capNoAead: "no AEAD cipher suite",
    capNameMismatch: "the certificate does not match the name",
  },
  cn: {
    cert_expired: "证书已于 {date} 过期。",
    cert_expiring_soon: "证书将在 {n} 天后过期。",
    cert_not_yet_valid: "证书在 {date} 之前无效。",
    name_mismatch: "证书与该域名不匹配。",
    self_signed: "证书为自签名证书。",
    untrusted_root: "证书链指向不受信任的根证书。",
    incomplete_chain: "服务器未发送完整证书链：不会自动获取缺失中间证书的客户端将连接失败。",
    cert_revoked: "装订的 OCSP 应答表明证书已被吊销。",
    ocsp_staple_invalid: "装订的 OCSP 应答无法验证。",
    weak_signature: "{subject} 使用较弱的 {algorithm} 签名。",
    weak_key: "{algorithm} 密钥只有 {bits} 位。",
    tls1_0_enabled: "支持 TLS 1.0（已弃用，RFC 8996）。",
    tls1_1_enabled: "支持 TLS 1.1（已弃用，RFC 8996）。",
    no_tls1_2: "不支持 TLS 1.2。",
    no_tls1_3: "不支持 TLS 1.3。",
    tls_version_unknown: "{version} 无法测试（未及时响应）：按不支持计。",
    no_forward_secrecy: "协商的加密套件均不具备前向保密。",
    no_aead: "协商的加密套件均不是 AEAD。",
    no_hsts: "未发送 Strict-Transport-Security 头。",
    hsts_short_max_age: "HSTS max-age 为 {duration}，不足 180 天。",
    capKeyTooSmall: "密钥交换得分 {n}（密钥过短）",
    capWeakKey: "密钥交换得分 {n}（密钥较弱）",
    capWeakCipher: "可协商低于 112 位的加密套件",
    capSignedWith: "有证书使用 {algorithm} 签名",
    capNoTls12: "不支持 TLS 1.2",
    capLegacy: "支持 {version}",
    capNoForwardSecrecy: "没有前向保密",
    capNoAead: "没有 AEAD 加密套件",
    capNameMismatch: "证书与域名不匹配",
  },
  tw: {
    cert_expired: "憑證已於 {date} 過期。",
    cert_expiring_soon: "憑證將在 {n} 天後過期。",
    cert_not_yet_valid: "憑證在 {date} 之前無效。",
    name_mismatch: "憑證與此網域不符。",
    self_signed: "憑證為自簽憑證。",
    untrusted_root: "憑證鏈指向不受信任的根憑證。",
    incomplete_chain: "伺服器未傳送完整憑證鏈：不會自動取得缺少之中繼憑證的用戶端將連線失敗。",
    cert_revoked: "裝訂的 OCSP 回應表示憑證已被撤銷。",
    ocsp_staple_invalid: "裝訂的 OCSP 回應無法驗證。",
    weak_signature: "{subject} 使用較弱的 {algorithm} 簽章。",
    weak_key: "{algorithm} 金鑰只有 {bits} 位元。",
    tls1_0_enabled: "支援 TLS 1.0（已棄用，RFC 8996）。",
    tls1_1_enabled: "支援 TLS 1.1（已棄用，RFC 8996）。",
    no_tls1_2: "不支援 TLS 1.2。",
    no_tls1_3: "不支援 TLS 1.3。",
    tls_version_unknown: "{version} 無法測試（未及時回應）：視為不支援。",
    no_forward_secrecy: "協商的加密套件皆不具備前向保密。",
    no_aead: "協商的加密套件皆不是 AEAD。",
    no_hsts: "未傳送 Strict-Transport-Security 標頭。",
    hsts_short_max_age: "HSTS max-age 為 {duration}，不足 180 天。",
    capKeyTooSmall: "金鑰交換得分 {n}（金鑰過短）",
    capWeakKey: "金鑰交換得分 {n}（金鑰較弱）",
    capWeakCipher: "可協商低於 112 位元的加密套件",
    capSignedWith: "有憑證使用 {algorithm} 簽章",
    capNoTls12: "不支援 TLS 1.2",
    capLegacy: "支援 {version}",
    capNoForwardSecrecy: "沒有前向保密",
    capNoAead: "沒有 AEAD 加密套件",
    capNameMismatch: "憑證與網域不符",
  },
};

type Key = keyof typeof sslFindingTexts.en;
const t = messages<Key>(sslFindingTexts);
type Vars = Record<string, string | number>;

/** Per finding code: how its English message reads, and the figures taken from it. */
const findings: Record<string, { re?: RegExp; vars?: (m: RegExpMatchArray) => Vars }> = {
  cert_expired: { re: /^the certificate expired on (\S+)$/, vars: (m) => ({ date: formatTime(m[1]!) }) },
  cert_expiring_soon: { re: /expires in (-?\d+) days$/, vars: (m) => ({ n: formatNumber(Number(m[1])) }) },
  cert_not_yet_valid: {
    re: /^the certificate is valid from (\S+) only$/,
    vars: (m) => ({ date: formatTime(m[1]!) }),
  },
  name_mismatch: {},
  self_signed: { re: /^the certificate is self-signed$/ },
  untrusted_root: { re: /^the chain leads to a root that is not in the trust store$/ },
  incomplete_chain: { re: /^the server did not send the certificate that issued / },
  cert_revoked: { re: /^the stapled OCSP response says revoked$/ },
  ocsp_staple_invalid: {},
  weak_signature: {
    re: /^(.+) is signed with (\S+)$/s,
    vars: (m) => ({ subject: m[1]!.replace(/\n/g, ", "), algorithm: m[2]! }),
  },
  weak_key: {
    re: /^the (\S+) key has (\d+) bits$/,
    vars: (m) => ({ algorithm: m[1]!, bits: formatNumber(Number(m[2])) }),
  },
  tls1_0_enabled: {},
  tls1_1_enabled: {},
  no_tls1_2: {},
  no_tls1_3: {},
  tls_version_unknown: {
    re: /^(TLS [\d.]+|SSL [\d.]+) could not be tested/,
    vars: (m) => ({ version: m[1]! }),
  },
  no_forward_secrecy: {},
  no_aead: {},
  no_hsts: {},
  hsts_short_max_age: {
    re: /^HSTS max-age is (\d+) s/,
    vars: (m) => ({ duration: formatDuration(Number(m[1])) }),
  },
};

/** A finding (`{code, message}` of the audit's `warnings`) in the current locale. */
export function findingText(w: { code: string; message: string }): string {
  const f = Object.hasOwn(findings, w.code) ? findings[w.code] : undefined;
  if (!f) return w.message;
  if (!f.re) return t(w.code as Key);
  const m = w.message.match(f.re);
  return m ? t(w.code as Key, f.vars?.(m)) : w.message;
}

const caps: [RegExp, Key, ((m: RegExpMatchArray) => Vars)?][] = [
  [/^key exchange scores ([\d.]+) \(key too small\)$/, "capKeyTooSmall", (m) => ({ n: m[1]! })],
  [/^key exchange scores ([\d.]+) \(weak key\)$/, "capWeakKey", (m) => ({ n: m[1]! })],
  [/^a cipher suite under 112 bits is negotiable$/, "capWeakCipher"],
  [/^a certificate is signed with (\S+)$/, "capSignedWith", (m) => ({ algorithm: m[1]! })],
  [/^TLS 1\.2 is not offered$/, "capNoTls12"],
  [/^(TLS 1\.[01]) is offered$/, "capLegacy", (m) => ({ version: m[1]! })],
  [/^no forward secrecy$/, "capNoForwardSecrecy"],
  [/^no AEAD cipher suite$/, "capNoAead"],
  [/^the certificate does not match the name$/, "capNameMismatch"],
];

/**
 * A grade cap's reason in the current locale. A T cap's reason is the trust findings' messages joined by
 * "; ": each is translated as its finding.
 */
export function capReasonText(reason: string): string {
  for (const [re, key, vars] of caps) {
    const m = reason.match(re);
    if (m) return t(key, vars?.(m));
  }
  return reason
    .split("; ")
    .map((part) => {
      for (const [code, f] of Object.entries(findings)) {
        const m = f.re ? part.match(f.re) : null;
        if (m) return t(code as Key, f.vars?.(m)).replace(/[.。]$/, "");
      }
      return part;
    })
    .join("; ");
}
