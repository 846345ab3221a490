import { z } from "zod";

/** CONTRACT (owned by the tls/ folder; extend, do not rename): a bare domain (no scheme) and a port. */
export const sslInputSchema = z.strictObject({
  domain: z.string().max(255),
  port: z.coerce.number().int().min(1).max(65535).default(443),
});
export type SslInput = z.output<typeof sslInputSchema>;

export const chainItemSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  signature_algorithm: z.string(),
  public_key_algorithm: z.string(),
  public_key_bits: z.number().int(),
  serial_number: z.string(),
  fingerprint_sha256: z.string(),
  is_ca: z.boolean(),
});

export const sslResultSchema = z.object({
  domain: z.string(),
  issuer: z.string(),
  subject: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  san_domains: z.array(z.string()),
  protocol: z.string(),
  days_until_expiry: z.number().int(),
  valid: z.boolean(),
  grade: z.string(),
  cipher_suite: z.string(),
  ocsp_status: z.enum(["good", "revoked", "unknown", "not_stapled", "no_ocsp_url", "error"]),
  sct_count: z.number().int(),
  tls_versions: z.array(z.object({ version: z.string(), supported: z.boolean() })),
  warnings: z.array(z.object({ code: z.string(), severity: z.string(), message: z.string() })),
  chain: z.array(chainItemSchema),
});
export type SslResult = z.infer<typeof sslResultSchema>;

/** Everything the TLS audit reaches, injectable. */
export interface TlsAuditOptions {
  /** Extra trusted CA certificates (PEM) besides the system store: tests use their own CA. */
  extraCa?: string[];
}
