import { z } from "zod";

/**
 * CONTRACT (owned by the ip/ folder; extend, do not rename): an IPv4 or IPv6 address as users type it →
 * its canonical text (IPv4 dotted quad; IPv6 compressed lower-case, RFC 5952). Anything else is refused.
 */
export const ipInputSchema = z.strictObject({
  ip: z.string().max(64),
});
export type IpInput = z.output<typeof ipInputSchema>;

export const ipResultSchema = z.object({
  ip: z.string(),
  /** ISO 3166-1 alpha-2, upper-case; null when the data has no answer or the address is reserved. */
  country: z.string().nullable(),
  country_name: z.string().nullable(),
  /** The AS organisation (e.g. "Google LLC"), not a retail ISP. */
  isp: z.string().nullable(),
  /** `AS<number>`. */
  asn: z.string().nullable(),
  /** True for private, loopback, link-local, CGNAT, documentation, multicast and other special ranges. */
  reserved: z.boolean(),
  /** The special range's name when `reserved` (e.g. "private", "loopback"), else null. */
  range: z.string().nullable(),
  /** Version of the data that answered (the ip-location-db build, `2.3.YYYYMMDDHH`). */
  data_version: z.string(),
});
export type IpResult = z.infer<typeof ipResultSchema>;

/** What the IP lookup reads: the loaded data (see ip/database.ts), swapped atomically on reload. */
export interface IpDataSource {
  readonly version: string;
  /** Country, AS number and AS organisation of a public address; nulls where the data has no answer. */
  find(ip: string): { country: string | null; asn: number | null; org: string | null };
}
