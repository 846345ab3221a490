import { z } from "zod";
import { canonicalIp } from "./address.js";

/**
 * An IPv4 or IPv6 address as users type it → its canonical text: IPv4 dotted quad; IPv6 compressed
 * lower-case (RFC 5952; IPv4-mapped as `::ffff:8.8.8.8`). Surrounding whitespace and brackets around IPv6
 * are accepted; host names, networks (CIDR), zone ids and shorthand IPv4 (`127.1`) are refused.
 */
export const ipAddressSchema = z
  .string()
  .max(64)
  .transform((raw, ctx) => {
    const parsed = canonicalIp(raw);
    if (parsed.ok) return parsed.ip;
    ctx.addIssue({ code: "custom", message: parsed.problem });
    return z.NEVER;
  });

export const ipInputSchema = z.strictObject({
  ip: ipAddressSchema,
});
export type IpInput = z.output<typeof ipInputSchema>;

export const ipResultSchema = z.object({
  /** The address looked up, canonical (see ipAddressSchema). */
  ip: z.string(),
  /** ISO 3166-1 alpha-2, upper-case; null when the data has no answer or the address is reserved. */
  country: z.string().nullable(),
  /** English name of `country` (Intl.DisplayNames), e.g. "United States". */
  country_name: z.string().nullable(),
  /** The AS organisation (e.g. "Google LLC"), not a retail ISP. */
  isp: z.string().nullable(),
  /** `AS<number>`. */
  asn: z.string().nullable(),
  /** True for private, loopback, link-local, CGNAT, documentation, multicast and other special ranges. */
  reserved: z.boolean(),
  /**
   * The special range's category when `reserved` (the target guard's names: "private", "loopback",
   * "link_local", "cgnat", "documentation", "multicast", "reserved", …), else null.
   */
  range: z.string().nullable(),
  /** Version of the data that answered (the ip-location-db build, `2.3.YYYYMMDDHH`). */
  data_version: z.string(),
});
export type IpResult = z.infer<typeof ipResultSchema>;

/** What the IP lookup reads: the loaded data (see ip/database.ts), swapped atomically on reload. */
export interface IpDataSource {
  readonly version: string;
  /**
   * Country, AS number and AS organisation of a public address (canonical or any valid text; IPv4-mapped
   * answers for its IPv4 address); nulls where the data has no answer. Throws a TypeError on a non-address.
   */
  find(ip: string): { country: string | null; asn: number | null; org: string | null };
  /** As `find`, for an IPv4 address already parsed (unsigned 32-bit): what the lookup calls. */
  findV4?(ip: number): { country: string | null; asn: number | null; org: string | null };
  /** As `find`, for an IPv6 address already parsed to four 32-bit words (most significant first). */
  findV6?(
    a: number,
    b: number,
    c: number,
    d: number,
    text: string,
  ): { country: string | null; asn: number | null; org: string | null };
}
