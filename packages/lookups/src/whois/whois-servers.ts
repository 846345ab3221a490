import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { normaliseServer } from "./text-record.js";

/*
 * Which port-43 server to ask, and how to phrase the question. Order: the context's overrides (longest
 * suffix first), then the shipped node-whois table (data/whois-servers/, BSD-2, data date 2026-04-30),
 * then IANA's referral (`whois.iana.org`, or the override under "iana").
 */

export const IANA_SERVER = "whois.iana.org";

const tableEntrySchema = z.union([
  z.string(),
  z.null(),
  z.object({ host: z.string(), query: z.string().optional(), punycode: z.boolean().optional() }),
]);
const tableSchema = z
  .object({ _: z.object({ ip: z.object({ host: z.string(), query: z.string() }) }) })
  .catchall(z.unknown());

interface Table {
  servers: Map<string, { host: string; query?: string }>;
  ip: { host: string; query: string };
}

let table: Table | undefined;
function shippedTable(): Table {
  if (table) return table;
  const file = fileURLToPath(new URL("../../data/whois-servers/servers.json", import.meta.url));
  const raw = tableSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  const servers = new Map<string, { host: string; query?: string }>();
  for (const [suffix, value] of Object.entries(raw)) {
    const entry = tableEntrySchema.safeParse(value);
    // `null` (no public server known) is as good as absent: a shorter suffix or IANA may know better.
    if (suffix === "_" || !entry.success || entry.data === null) continue;
    const e = typeof entry.data === "string" ? { host: entry.data } : entry.data;
    servers.set(suffix, e.query === undefined ? { host: e.host } : { host: e.host, query: e.query });
  }
  table = { servers, ip: raw._.ip };
  return table;
}

/**
 * Query syntax per registry, by TLD: the registry's own syntax, sent to whatever server the context or the
 * table names for that TLD (an override for `de` stands in for DENIC). DENIC's `-T dn,ace` answers the
 * domain object (not the holder's) with the punycode name; JPRS answers in English with `/e`; Verisign's
 * `DOMAIN` keeps name-server and registrar objects out of the answer.
 */
const QUERY_BY_TLD: Record<string, string> = { de: "-T dn,ace $addr", jp: "$addr/e" };
/** The same, by host, for servers reached through a referral. */
const QUERY_BY_HOST: Record<string, string> = {
  "whois.denic.de": "-T dn,ace $addr",
  "whois.jprs.jp": "$addr/e",
  "whois.verisign-grs.com": "DOMAIN $addr",
  "whois.arin.net": "n + $addr",
};

/** Date-times printed without a zone, minutes east of UTC: CNNIC prints Beijing time (cn and its IDN TLDs). */
const ZONELESS_OFFSET_BY_TLD: Record<string, number> = { cn: 480, "xn--fiqs8s": 480, "xn--fiqz9s": 480 };

export interface ServerChoice {
  /** `host[:port]`. */
  server: string;
  /** The question, `$addr` standing for the name or address (no line end). */
  template: string;
}

/** The registry server for `domain` from the overrides or the table; undefined: ask IANA. */
export function registryServerFor(
  domain: string,
  overrides: Record<string, string>,
): ServerChoice | undefined {
  const labels = domain.split(".");
  const tld = labels.at(-1) ?? "";
  // Suffixes only (the name itself is no zone): `a.co.uk` → co.uk, uk.
  const suffixes = labels.slice(1).map((_, i) => labels.slice(i + 1).join("."));
  const templateFor = (suffix: string, tableQuery?: string) =>
    QUERY_BY_TLD[tld] ?? tableQuery ?? shippedTable().servers.get(suffix)?.query ?? "$addr";
  for (const suffix of suffixes) {
    const server = Object.hasOwn(overrides, suffix) ? overrides[suffix] : undefined;
    if (server) return { server, template: clean(templateFor(suffix)) };
  }
  for (const suffix of suffixes) {
    const entry = shippedTable().servers.get(suffix);
    if (entry) return { server: entry.host, template: clean(templateFor(suffix, entry.query)) };
  }
  return undefined;
}

/** The first server for an IP address: the override under "ip", else ARIN (which refers to the others). */
export function ipServerFor(overrides: Record<string, string>): ServerChoice {
  const { ip } = shippedTable();
  return { server: overrides["ip"] ?? ip.host, template: clean(ip.query) };
}

export function ianaServer(overrides: Record<string, string>): string {
  return overrides["iana"] ?? IANA_SERVER;
}

/** The question for a server reached by referral: its own syntax when we know it, else the bare name. */
export function referralTemplate(server: string): string {
  const host = server.replace(/:\d+$/, "");
  return clean(QUERY_BY_HOST[host] ?? "$addr");
}

export function zonelessOffsetFor(domain: string): number {
  return ZONELESS_OFFSET_BY_TLD[domain.split(".").at(-1) ?? ""] ?? 0;
}

/**
 * IANA's answer about a TLD → its WHOIS server (`refer:`, else `whois:`); null when the TLD has none, and
 * "no_such_tld" when IANA has no record of it at all.
 */
export function readIanaReferral(text: string): string | null | "no_such_tld" {
  if (/^%+\s*this query returned 0 objects/im.test(text)) return "no_such_tld";
  const value = (key: string) => new RegExp(`^${key}:[ \\t]*(\\S+)`, "im").exec(text)?.[1] ?? null;
  return normaliseServer(value("refer")) ?? normaliseServer(value("whois"));
}

export function fillTemplate(template: string, query: string): string {
  return template.replaceAll("$addr", query);
}

function clean(template: string): string {
  return template.replace(/\r?\n$/, "").replace(/\\r\\n$/, "");
}
