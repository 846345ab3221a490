import { type CertInfo, weakSignatureHash } from "./certificate.js";
import { aead, forwardSecret } from "./cipher-suite.js";
import { HSTS_MIN_MAX_AGE } from "./hsts.js";
import type { OcspStatus } from "./ocsp.js";
import type { HstsInfo, SslWarning, TlsVersionResult } from "./schema.js";
import type { TrustVerdict } from "./trust.js";

/*
 * Every warning the audit can give. Codes are API: stable, snake_case, listed in docs/tls-grading.md.
 * Severity: `critical` (clients fail or the grade is T/M/F), `warning` (turns an A into A−, or caps it),
 * `info` (worth knowing, no effect on the grade).
 */

/**
 * Codes behind a T or M (and weak_signature: T for SHA-1, an F cap for MD5): they do not also count as
 * the "warnings" that turn an A into A−, so `grade_if_trusted` is the grade with them fixed.
 */
export const TRUST_CODES = new Set([
  "weak_signature",
  "cert_expired",
  "cert_not_yet_valid",
  "self_signed",
  "untrusted_root",
  "incomplete_chain",
  "cert_revoked",
  "name_mismatch",
]);

const DAY = 86_400_000;

export interface WarningFacts {
  now: Date;
  domain: string;
  /** Leaf first, as sent. */
  chain: CertInfo[];
  trust: TrustVerdict;
  nameMismatch: string | null;
  versions: TlsVersionResult[];
  suites: string[];
  certKey: { algorithm: string; bits: number };
  ocsp: { status: OcspStatus; detail: string | null };
  hsts: HstsInfo;
}

export function collectWarnings(f: WarningFacts): SslWarning[] {
  const out: SslWarning[] = [];
  const add = (code: string, severity: SslWarning["severity"], message: string) =>
    out.push({ code, severity, message });
  const leaf = f.chain[0];
  if (!leaf) return out;

  const notAfter = new Date(leaf.item.not_after);
  const days = Math.floor((notAfter.getTime() - f.now.getTime()) / DAY);
  if (notAfter < f.now) add("cert_expired", "critical", `the certificate expired on ${leaf.item.not_after}`);
  else if (days < 30) {
    add("cert_expiring_soon", days < 7 ? "critical" : "warning", `the certificate expires in ${days} days`);
  }
  if (new Date(leaf.item.not_before) > f.now) {
    add("cert_not_yet_valid", "critical", `the certificate is valid from ${leaf.item.not_before} only`);
  }
  if (f.nameMismatch) add("name_mismatch", "critical", f.nameMismatch);

  switch (f.trust.problem) {
    case "self_signed":
      add("self_signed", "critical", "the certificate is self-signed");
      break;
    case "untrusted_root":
      add("untrusted_root", "critical", "the chain leads to a root that is not in the trust store");
      break;
    case "incomplete_chain":
      add(
        "incomplete_chain",
        "critical",
        `the server did not send the certificate that issued ${f.trust.path.at(-1)?.subject.replace(/\n/g, ", ") ?? "the leaf"}, and it is not a trusted root: clients that do not fetch missing intermediates fail`,
      );
      break;
  }
  if (f.ocsp.status === "revoked") add("cert_revoked", "critical", "the stapled OCSP response says revoked");
  if (f.ocsp.status === "error") add("ocsp_staple_invalid", "warning", f.ocsp.detail ?? "bad OCSP staple");

  // Roots sign themselves; their own signature is never checked, so its hash does not matter.
  for (const cert of f.chain.filter((c, i) => i === 0 || !c.selfIssued)) {
    const hash = weakSignatureHash(cert.item.signature_algorithm);
    if (hash) {
      add(
        "weak_signature",
        "critical",
        `${cert.item.subject} is signed with ${cert.item.signature_algorithm}`,
      );
    }
  }
  const { algorithm, bits } = f.certKey;
  const small = algorithm === "EC" ? bits < 224 : /^(?:RSA|RSA-PSS|DSA)$/.test(algorithm) && bits < 2048;
  if (small) add("weak_key", bits < 1024 ? "critical" : "warning", `the ${algorithm} key has ${bits} bits`);

  const status = (v: string) => f.versions.find((r) => r.version === v)?.status;
  if (status("TLS 1.0") === "offered")
    add("tls1_0_enabled", "warning", "TLS 1.0 is offered (deprecated, RFC 8996)");
  if (status("TLS 1.1") === "offered")
    add("tls1_1_enabled", "warning", "TLS 1.1 is offered (deprecated, RFC 8996)");
  if (status("TLS 1.2") === "not_offered") add("no_tls1_2", "warning", "TLS 1.2 is not offered");
  if (status("TLS 1.3") === "not_offered") add("no_tls1_3", "warning", "TLS 1.3 is not offered");
  for (const v of f.versions.filter((r) => r.status === "unknown")) {
    add(
      "tls_version_unknown",
      "warning",
      `${v.version} could not be tested (no answer in time): reported as not supported`,
    );
  }
  if (f.suites.length > 0 && !f.suites.some(forwardSecret)) {
    add("no_forward_secrecy", "warning", "no negotiated cipher suite has forward secrecy");
  }
  if (f.suites.length > 0 && !f.suites.some(aead))
    add("no_aead", "warning", "no negotiated cipher suite is AEAD");

  if (f.hsts.max_age === null) add("no_hsts", "info", "no Strict-Transport-Security header on HEAD /");
  else if (f.hsts.max_age < HSTS_MIN_MAX_AGE) {
    add("hsts_short_max_age", "warning", `HSTS max-age is ${f.hsts.max_age} s, under 180 days (15552000 s)`);
  }
  return out;
}
