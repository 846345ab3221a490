import type { WhoisNetwork } from "./schema.js";

/** What one port-43 answer says, normalised. */
export interface TextRecord {
  registrar: string | null;
  expires_at: string | null;
  /** Lower-case, no trailing dot, unique, sorted. */
  name_servers: string[];
  /** `host[:port]` of a server holding more (a registrar's thick record, the RIR of an address). */
  referral: string | null;
  /** IP answers only. */
  network?: WhoisNetwork;
  /** The answer had at least one field we know: anything else (a rate-limit notice…) is not a record. */
  recognised: boolean;
}

/** Name servers as the result carries them: the name only (some lists add addresses), lower-case, sorted. */
export function normaliseNameServers(values: string[]): string[] {
  const names = values
    .map((v) => (v.trim().split(/\s+/)[0] ?? "").toLowerCase().replace(/\.$/, ""))
    .filter((v) => /^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(v));
  return [...new Set(names)].sort();
}

/**
 * A referral as `host[:port]`: `whois://whois.ripe.net`, `whois.example.com/`, `http://whois.x.com` all
 * name the host. `rwhois://` is another protocol and names no port-43 server: null.
 */
export function normaliseServer(value: string | null): string | null {
  if (!value) return null;
  const v = value.trim().toLowerCase();
  if (v.startsWith("rwhois://")) return null;
  const host = v.replace(/^[a-z]+:\/\//, "").replace(/\/.*$/, "");
  return /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/.test(host) && host.includes(".") ? host : null;
}
