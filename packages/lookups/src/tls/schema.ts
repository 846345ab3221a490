import { z } from "zod";
import { domainSchema } from "../dns/schema.js";

/**
 * A bare domain as users type it. URLs and host:port are refused with a message saying what to send
 * instead, rather than the name checker's generic "labels of…" (the commonest mistake is pasting a URL).
 */
const bareDomainSchema = z
  .string()
  .max(255)
  .superRefine((raw, ctx) => {
    const value = raw.trim();
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      ctx.addIssue({ code: "custom", message: "expected a bare domain (example.com), not a URL" });
    } else if (/[/?#]/.test(value)) {
      ctx.addIssue({ code: "custom", message: "expected a bare domain (example.com), without a path" });
    } else if (/:\d*$/.test(value)) {
      ctx.addIssue({ code: "custom", message: "expected a bare domain; give the port as `port`" });
    }
  })
  .pipe(domainSchema);

/** CONTRACT (owned by the tls/ folder; extend, do not rename): a bare domain (no scheme) and a port. */
export const sslInputSchema = z.strictObject({
  domain: bareDomainSchema,
  port: z.coerce.number().int().min(1).max(65535).default(443),
});
export type SslInput = z.output<typeof sslInputSchema>;

export const chainItemSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  /** e.g. `sha256WithRSAEncryption`, `ecdsa-with-SHA256`, `Ed25519` (OpenSSL's names); the OID if unknown. */
  signature_algorithm: z.string(),
  /** `RSA`, `EC`, `Ed25519`, `Ed448`, `DSA`, `RSA-PSS`. */
  public_key_algorithm: z.string(),
  public_key_bits: z.number().int(),
  serial_number: z.string(),
  fingerprint_sha256: z.string(),
  is_ca: z.boolean(),
});
export type ChainItem = z.infer<typeof chainItemSchema>;

export const warningSeverities = ["info", "warning", "critical"] as const;
export const warningSchema = z.object({
  /** Stable snake_case code (docs/tls-grading.md lists them all). */
  code: z.string(),
  severity: z.enum(warningSeverities),
  message: z.string(),
});
export type SslWarning = z.infer<typeof warningSchema>;

export const tlsVersionNames = ["TLS 1.0", "TLS 1.1", "TLS 1.2", "TLS 1.3"] as const;
export type TlsVersionName = (typeof tlsVersionNames)[number];

export const tlsVersionSchema = z.object({
  version: z.enum(tlsVersionNames),
  /** True only when a handshake at exactly this version completed. */
  supported: z.boolean(),
  /**
   * `offered`; `not_offered` (the server refused: alert or reset during the handshake); `unknown` (no
   * answer in time, or a failure that says nothing about the version): `supported` is false then, and a
   * `tls_version_unknown` warning says so.
   */
  status: z.enum(["offered", "not_offered", "unknown"]),
  /** The IANA name of the suite the server chose at this version, when offered. */
  cipher_suite: z.string().nullable(),
});
export type TlsVersionResult = z.infer<typeof tlsVersionSchema>;

export const hstsSchema = z.object({
  /** The raw `strict-transport-security` header of `HEAD /`, or null (absent, or the request failed). */
  header: z.string().nullable(),
  max_age: z.number().int().nullable(),
  include_subdomains: z.boolean(),
  preload: z.boolean(),
});
export type HstsInfo = z.infer<typeof hstsSchema>;

export const gradeDetailsSchema = z.object({
  protocol_score: z.number(),
  key_exchange_score: z.number(),
  cipher_strength_score: z.number(),
  /** 0.3·protocol + 0.3·key exchange + 0.4·cipher strength (0 when a category scores 0). */
  score: z.number(),
  /** Every cap that applied: the letter and why, lowest first. */
  caps: z.array(z.object({ grade: z.string(), reason: z.string() })),
});

export const sslResultSchema = z.object({
  domain: z.string(),
  /** The port audited. */
  port: z.number().int(),
  /** The address every handshake went to (resolved once, checked by the target guard). */
  address: z.string(),
  issuer: z.string(),
  subject: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  san_domains: z.array(z.string()),
  /** The best version negotiated, "TLS 1.3" style. */
  protocol: z.string(),
  days_until_expiry: z.number().int(),
  /** Chain trusted (system store + configured CAs) && the name matches && within its validity period. */
  valid: z.boolean(),
  /** SSL Labs style: A+, A, A-, B, C, D, E, F, or T (trust) / M (name mismatch), which override the rest. */
  grade: z.string(),
  /** The grade the server would get if its certificate were trusted and matched the name. */
  grade_if_trusted: z.string(),
  grade_details: gradeDetailsSchema,
  /** The IANA name of the suite negotiated in the main handshake, e.g. `TLS_AES_256_GCM_SHA384`. */
  cipher_suite: z.string(),
  /** The ephemeral key of the main handshake (forward secrecy), null for RSA key exchange. */
  key_exchange: z
    .object({ type: z.string(), name: z.string().nullable(), bits: z.number().int() })
    .nullable(),
  ocsp_status: z.enum(["good", "revoked", "unknown", "not_stapled", "no_ocsp_url", "error"]),
  /** SCTs embedded in the leaf certificate (the TLS-extension and OCSP routes are invisible to Node). */
  sct_count: z.number().int(),
  tls_versions: z.array(tlsVersionSchema),
  hsts: hstsSchema,
  warnings: z.array(warningSchema),
  /** Leaf first, in the order the server sent them. */
  chain: z.array(chainItemSchema),
});
export type SslResult = z.infer<typeof sslResultSchema>;

/** Everything the TLS audit reaches, injectable. */
export interface TlsAuditOptions {
  /** Extra trusted CA certificates (PEM) besides the system store: tests use their own CA. */
  extraCa?: string[];
}
