import { domainToASCII } from "node:url";
import { dnsRecordTypes } from "@vantage/probes/dns-query";
import { z } from "zod";

export { type DnsRecordType, dnsRecordTypes } from "@vantage/probes/dns-query";

/** A name label: letters, digits, hyphens (not at either end) and underscores (`_dmarc`, `_443._tcp`). */
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * A domain as users type it → the ASCII form queried: trimmed, lower-cased, one trailing dot dropped, an
 * internationalised name turned into punycode. Refused: IP literals (an all-numeric top label), empty labels,
 * labels over 63 bytes, names over 253, and any character that has no place in a name (spaces, `/`, `*`…).
 */
export const domainSchema = z
  .string()
  .max(255)
  .transform((raw, ctx) => {
    const name = toAsciiName(raw);
    const problem = nameProblem(name);
    if (problem === null) return name;
    ctx.addIssue({ code: "custom", message: problem });
    return z.NEVER;
  });

function toAsciiName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, "");
  const chars = [...name];
  const isAscii = (c: string) => c.charCodeAt(0) < 0x80;
  // Only a name with non-ASCII letters and nothing but name characters besides goes through URL host
  // parsing: it would cut "a/b.com" down to "a" and drop tabs, so anything else is checked as typed.
  if (chars.every(isAscii) || chars.some((c) => isAscii(c) && !/[a-z0-9._-]/.test(c))) return name;
  return domainToASCII(name);
}

function nameProblem(name: string): string | null {
  if (name === "") return "expected a domain name";
  if (name.length > 253) return "a domain name has at most 253 characters";
  const labels = name.split(".");
  if (labels.some((l) => !LABEL.test(l))) {
    return "expected a domain name: labels of 1–63 letters, digits, hyphens or underscores, separated by dots";
  }
  if (/^[0-9]+$/.test(labels.at(-1) ?? "")) return "expected a domain name, not an IP address";
  return null;
}

/** The record type; blank (an empty `type=` query parameter) means all of them, and case does not matter. */
const recordTypeSchema = z.preprocess(
  (v) => (typeof v === "string" ? v.trim().toUpperCase() || undefined : v),
  z.enum(dnsRecordTypes).optional(),
);

export const dnsRecordsInputSchema = z.strictObject({
  domain: domainSchema,
  type: recordTypeSchema,
});
export type DnsRecordsInput = z.output<typeof dnsRecordsInputSchema>;

export const dnsRecordSchema = z.object({
  type: z.enum(dnsRecordTypes),
  /** As `dig +short` prints it; names fully qualified with their trailing dot. */
  value: z.string(),
  ttl: z.number().int().min(0),
});
export type DnsRecord = z.infer<typeof dnsRecordSchema>;

export const dnsRecordsResultSchema = z.object({
  /** The name queried, in its ASCII form, lower-cased, without a trailing dot. */
  domain: z.string(),
  /**
   * `NOERROR`: the name exists (it may hold none of the types asked: `records` is then empty).
   * `NXDOMAIN`: the name does not exist; `records` is empty.
   */
  status: z.enum(["NOERROR", "NXDOMAIN"]),
  records: z.array(dnsRecordSchema),
  /**
   * Only when some of the types asked got no answer (the resolver refused or failed them, or did not answer
   * in time) while others did: those types, each with the error it got. `records` holds the types that
   * were answered. When every type asked fails, the lookup fails instead.
   */
  failed_types: z
    .array(
      z.object({
        type: z.enum(dnsRecordTypes),
        code: z.enum(["upstream_error", "upstream_timeout"]),
        message: z.string(),
      }),
    )
    .optional(),
});
export type DnsRecordsResult = z.infer<typeof dnsRecordsResultSchema>;
