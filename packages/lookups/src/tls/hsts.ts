import { guardedRequest } from "../net/guarded-http.js";
import type { LookupContext } from "../types.js";
import type { HstsInfo } from "./schema.js";

/** The A+ rule's threshold: 180 days (SSL Labs; testssl warns below it). */
export const HSTS_MIN_MAX_AGE = 15_552_000;

const NONE: HstsInfo = { header: null, max_age: null, include_subdomains: false, preload: false };

/**
 * `Strict-Transport-Security` from one `HEAD /` over HTTPS, pinned to the address the handshakes used
 * (the guard still checks it). Any failure (not HTTP, timeout, reset) means no HSTS: it only decides A+.
 */
export async function readHsts(
  domain: string,
  port: number,
  pinned: { address: string; family: 4 | 6 },
  ctx: Pick<LookupContext, "allowPrivate" | "signal">,
  timeoutMs: number,
): Promise<HstsInfo> {
  try {
    const res = await guardedRequest(
      `https://${domain}:${port}/`,
      { method: "HEAD", timeoutMs, insecureTls: true, maxBytes: 1024 },
      { allowPrivate: ctx.allowPrivate, signal: ctx.signal, lookup: async () => [pinned] },
    );
    const header = res.headers["strict-transport-security"];
    return typeof header === "string" ? parseHsts(header) : NONE;
  } catch {
    return NONE;
  }
}

/** RFC 6797 §6.1: directives separated by `;`, names case-insensitive, max-age required (else ignored). */
export function parseHsts(header: string): HstsInfo {
  // Node joins repeated headers with ", ": the first one counts (RFC 6797 §8.1).
  const first = header.split(",")[0] ?? "";
  const directives = first.split(";").map((d) => d.trim().toLowerCase());
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)?.[1]).find((v) => v !== undefined);
  return {
    header,
    max_age: maxAge === undefined ? null : Math.min(Number(maxAge), Number.MAX_SAFE_INTEGER),
    include_subdomains: directives.includes("includesubdomains"),
    preload: directives.includes("preload"),
  };
}
