import { type ReputationDatasetName, reputationDatasetNames } from "@vantage/lookups";
import { parseSecretKey, type SecretKey } from "./lib/secret-box.js";

// The parsers of config.ts's structured variables: each returns the value, or a message naming the bad
// part. config.ts adds the variable's name; a secret's parser must not quote the value at all.

/** Comma-separated secret keys (see parseSecretKey) → the keys; a message naming the bad entry otherwise. */
export function parseSecretKeys(s: string): SecretKey[] | string {
  const entries = s
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  const keys: SecretKey[] = [];
  for (const [i, entry] of entries.entries()) {
    try {
      keys.push(parseSecretKey(entry));
    } catch (error) {
      const which = entries.length > 1 ? `key ${i + 1} of ${entries.length}: ` : "";
      return `${which}${(error as Error).message}`;
    }
  }
  return keys;
}

/** Usage families whose daily use can be reported to a Stripe billing meter. */
export const meteredFamilies = ["probes", "lookups", "reputation"] as const;
export type MeteredFamily = (typeof meteredFamilies)[number];

/**
 * `STRIPE_METER_EVENTS`: `family=event_name` pairs, comma-separated (`probes=vantage_node_probes`); each
 * family's daily use goes to the billing meter of that event name. Empty or `none` → no usage reporting.
 */
export function parseMeterEvents(s: string): Partial<Record<MeteredFamily, string>> | string {
  const text = s.trim();
  if (text === "" || text.toLowerCase() === "none") return {};
  const out: Partial<Record<MeteredFamily, string>> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [family = "", name = "", extra] = part.split("=").map((x) => x.trim());
    if (!(meteredFamilies as readonly string[]).includes(family) || extra !== undefined) {
      return `${part}: want family=event_name, the family one of ${meteredFamilies.join(", ")}`;
    }
    if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(name)) {
      return `${part}: the event name must be 1–100 letters, digits or _ . : -`;
    }
    if (out[family as MeteredFamily]) return `${part}: ${family} is given twice`;
    out[family as MeteredFamily] = name;
  }
  return out;
}

/** `host:port` (`[v6]:port` for IPv6) → its parts; undefined when it is not that. Port 0 picks a free one. */
export function parseListen(s: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(s.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: (m[1] ?? m[2])!, port };
}

/** A dataset a URL refreshes: `tor_exits`, …, or `cloud_ranges/<provider>`. */
export interface ReputationSource {
  dataset: ReputationDatasetName;
  provider?: string;
  url: string;
}

/** `VANTAGE_REPUTATION_SOURCES`: `dataset=url` pairs, comma-separated; `none` or empty → none. */
export function parseReputationSources(s: string): ReputationSource[] | string {
  const text = s.trim();
  if (text === "" || text.toLowerCase() === "none") return [];
  const out: ReputationSource[] = [];
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    const name = eq > 0 ? part.slice(0, eq).trim() : "";
    const url = eq > 0 ? part.slice(eq + 1).trim() : "";
    const [dataset = "", provider, extra] = name.split("/");
    if (!(reputationDatasetNames as readonly string[]).includes(dataset) || extra !== undefined) {
      return `${part}: want dataset=url, the dataset one of ${reputationDatasetNames.join(", ")} (cloud_ranges/<provider>)`;
    }
    if (
      (dataset === "cloud_ranges") !== (provider !== undefined) ||
      (provider !== undefined && !/^[a-z0-9_-]{1,32}$/.test(provider))
    ) {
      return `${part}: cloud_ranges takes a provider (cloud_ranges/amazon=…), the other datasets none`;
    }
    if (!/^https?:\/\/[^\s]+$/.test(url)) return `${part}: the URL must be http(s)`;
    out.push({ dataset: dataset as ReputationDatasetName, ...(provider ? { provider } : {}), url });
  }
  return out;
}

/**
 * `{"cn": "whois.cnnic.cn", "uk": "127.0.0.1:4343"}` → the map, keys lower-cased without a leading dot;
 * a message when it is not a JSON object of `host[:port]` strings.
 */
export function parseWhoisServers(s: string): Record<string, string> | string {
  const shape = 'must be a JSON object of TLD → "host[:port]", e.g. {"cn":"whois.cnnic.cn"}';
  let raw: unknown;
  try {
    raw = JSON.parse(s);
  } catch {
    return shape;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return shape;
  const out: Record<string, string> = {};
  for (const [tld, server] of Object.entries(raw)) {
    const key = tld.trim().toLowerCase().replace(/^\./, "");
    if (!/^[a-z0-9-]{1,63}$/.test(key) || typeof server !== "string" || !/^[^\s/]{1,255}$/.test(server)) {
      return `${shape}; ${JSON.stringify(tld)} is not`;
    }
    out[key] = server;
  }
  return out;
}

/**
 * Server URLs (comma-separated, as NATS_URL) with any `user:password@` or token in them masked, for logs:
 * `nats://app:s3cret@10.0.0.5:4222,nats://10.0.0.6` → `nats://***@10.0.0.5:4222,nats://10.0.0.6`.
 */
export function maskUrlCredentials(urls: string): string {
  return urls.replace(
    /(^|,|\s)([a-z][a-z0-9+.-]*:\/\/)?[^\s,/@]+@/gi,
    (_m, lead: string, scheme = "") => `${lead}${scheme}***@`,
  );
}
