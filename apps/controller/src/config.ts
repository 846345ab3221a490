import { parseDnsblZones, type ReputationDatasetName, reputationDatasetNames } from "@vantage/lookups";
import { z } from "zod";
import { parsePlanLimits } from "./lib/plans.js";
import { parseSecretKey, type SecretKey } from "./lib/secret-box.js";

/** The controller's roles; each runs its own share of the work (see runtime.ts). */
export const roles = ["api", "scheduler", "notifier", "presence"] as const;
export type Role = (typeof roles)[number];

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

/**
 * Every environment variable the controller reads, with its default. The README's configuration table is
 * checked against this schema by a test, so a variable added here must be documented there.
 */
export const configSchema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  VANTAGE_API_FORM: z.enum(["a", "b"]).default("b"),
  VANTAGE_ROLES: z
    .string()
    .default("api,scheduler,notifier,presence")
    .transform((s) => s.split(",").map((r) => r.trim()))
    .pipe(
      z
        .array(z.enum(roles))
        .min(1)
        .transform((list) => [...new Set(list)]),
    ),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  VANTAGE_DATA_DIR: z.string().min(1).default("./.vantage"),
  VANTAGE_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  VANTAGE_DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  NATS_URL: z.string().min(1).optional(),
  NATS_NO_RANDOMIZE: bool.default(false),
  NATS_CREDS_FILE: z.string().min(1).optional(),
  NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  VANTAGE_ALLOW_OPEN_NATS: bool.default(false),
  VANTAGE_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  VANTAGE_ACCESS_LOG: bool.default(true),
  VANTAGE_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  VANTAGE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  VANTAGE_DEFAULT_NODES: z.coerce.number().int().min(1).max(50).default(3),
  /** Comment lines (`: keep-alive`) on live probe streams (SSE) this often, so proxies keep them open. */
  VANTAGE_SSE_HEARTBEAT_MS: z.coerce.number().int().min(1000).max(300_000).default(15_000),
  /** Live result streams (SSE) open at once in this process, per client IP and per account. */
  VANTAGE_STREAMS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20),
  VANTAGE_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Refused requests (400, 413, 415) per client IP and minute before its bodies are refused unread; 0 = off. */
  VANTAGE_REFUSED_LIMIT_IP: z.coerce.number().int().min(0).max(1_000_000_000).default(60),
  /** Alert channel test sends per hour, per channel and per account. */
  VANTAGE_ALERT_TEST_LIMIT_CHANNEL: z.coerce.number().int().min(1).max(1_000_000).default(10),
  VANTAGE_ALERT_TEST_LIMIT_ACCOUNT: z.coerce.number().int().min(1).max(1_000_000).default(30),
  VANTAGE_ALLOW_PRIVATE_TARGETS: bool.default(false),
  VANTAGE_PLAN_LIMITS: z
    .string()
    .optional()
    .transform((s, ctx) => {
      const table = parsePlanLimits(s);
      if (typeof table === "string") {
        ctx.addIssue({ code: "custom", message: table });
        return z.NEVER;
      }
      return table;
    }),
  VANTAGE_LIMIT_SYNC_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  VANTAGE_USAGE_FLUSH_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  VANTAGE_REGISTER_LIMIT_IP: z.coerce.number().int().min(0).max(1_000_000_000).default(10),
  VANTAGE_REGISTER_LIMIT_EMAIL: z.coerce.number().int().min(0).max(1_000_000_000).default(3),
  VANTAGE_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),
  VANTAGE_LOOKUP_CACHE_ENTRIES: z.coerce.number().int().min(0).max(10_000_000).default(10_000),
  VANTAGE_IP_DATA_DIR: z.string().min(1).optional(),
  VANTAGE_IP_CACHE_DIR: z.string().min(1).optional(),
  VANTAGE_RDAP_BOOTSTRAP: z.string().min(1).optional(),
  VANTAGE_WHOIS_SERVERS: z
    .string()
    .transform((s, ctx) => {
      const servers = parseWhoisServers(s);
      if (typeof servers === "string") {
        ctx.addIssue({ code: "custom", message: servers });
        return z.NEVER;
      }
      return servers;
    })
    .optional(),
  VANTAGE_DNS_RESOLVER: z
    .string()
    .regex(
      /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+|[0-9A-Fa-f:]+)(?::\d{1,5})?$/,
      "must be host or host:port ([v6]:port for IPv6 with a port)",
    )
    .optional(),
  VANTAGE_PAGERDUTY_URL: z.string().url().default("https://events.pagerduty.com/v2/enqueue"),
  VANTAGE_SMS_API_URL: z.string().url().default("https://api.twilio.com"),
  VANTAGE_ALERTS_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  VANTAGE_MONITOR_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  VANTAGE_SCHEDULER_TICK_MS: z.coerce.number().int().min(20).max(10_000).default(250),
  VANTAGE_SCHEDULER_BATCH: z.coerce.number().int().min(1).max(10_000).default(1000),
  VANTAGE_REPUTATION_DATA_DIR: z.string().min(1).optional(),
  VANTAGE_REPUTATION_SOURCES: z
    .string()
    .optional()
    .transform((s, ctx) => {
      const sources = parseReputationSources(s ?? "");
      if (typeof sources === "string") {
        ctx.addIssue({ code: "custom", message: sources });
        return z.NEVER;
      }
      return sources;
    }),
  VANTAGE_REPUTATION_REFRESH_S: z.coerce.number().int().min(60).max(604_800).default(3600),
  VANTAGE_REPUTATION_TIMEOUT_MS: z.coerce.number().int().min(500).max(30_000).default(3000),
  VANTAGE_REPUTATION_RDNS: bool.default(true),
  VANTAGE_DNSBL_ZONES: z
    .string()
    .default("dnsbl.dronebl.org,dnsel.torproject.org")
    .transform((s, ctx) => {
      if (s.trim().toLowerCase() === "none") return [];
      try {
        return parseDnsblZones(s);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  VANTAGE_DNSBL_RESOLVER: z
    .string()
    .regex(
      /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+|[0-9A-Fa-f:]+)(?::\d{1,5})?$/,
      "must be host or host:port ([v6]:port for IPv6 with a port)",
    )
    .optional(),
  VANTAGE_ICP_PROVIDER_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, "must be an http(s) URL")
    .optional(),
  VANTAGE_ICP_PROVIDER_KEY: z.string().min(1).optional(),
  VANTAGE_NODE_OFFLINE_AFTER_MS: z.coerce.number().int().min(1000).max(600_000).default(15_000),
  VANTAGE_PUBLIC_URL: z.string().url().optional(),
  VANTAGE_TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p.length > 0),
    ),
  VANTAGE_JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  VANTAGE_SECRET_KEY: z
    .string()
    .transform((s, ctx) => {
      try {
        return parseSecretKey(s);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    })
    .optional(),
  VANTAGE_SECRET_KEYS_PREVIOUS: z
    .string()
    .default("")
    .transform((s, ctx) => {
      const keys = parseSecretKeys(s);
      if (typeof keys === "string") {
        ctx.addIssue({ code: "custom", message: keys });
        return z.NEVER;
      }
      return keys;
    }),
  VANTAGE_METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)")
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
    .optional(),
  VANTAGE_METRICS_LISTEN: z
    .string()
    .transform((s, ctx) => {
      const listen = parseListen(s);
      if (!listen) {
        ctx.addIssue({ code: "custom", message: "must be host:port, e.g. 127.0.0.1:9464 or [::1]:9464" });
        return z.NEVER;
      }
      return listen;
    })
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional(),
  SMTP_FROM: z.string().min(3).default("Vantage <no-reply@vantage.invalid>"),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_[A-Za-z0-9_]+$/, "must be a Stripe secret or restricted key (sk_… or rk_…)")
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S+$/, "must be a webhook signing secret (whsec_…)")
    .optional(),
  STRIPE_PRICE_PRO: z
    .string()
    .regex(/^price_\w+$/, "must be a Stripe price id (price_…)")
    .optional(),
  STRIPE_PRICE_BUSINESS: z
    .string()
    .regex(/^price_\w+$/, "must be a Stripe price id (price_…)")
    .optional(),
  /** Metered price added to every checkout (usage reported through billing meters), when set. */
  STRIPE_PRICE_METERED: z
    .string()
    .regex(/^price_\w+$/, "must be a Stripe price id (price_…)")
    .optional(),
  STRIPE_METER_EVENTS: z
    .string()
    .optional()
    .transform((s, ctx) => {
      const events = parseMeterEvents(s ?? "");
      if (typeof events === "string") {
        ctx.addIssue({ code: "custom", message: events });
        return z.NEVER;
      }
      return events;
    }),
  STRIPE_API_BASE: z
    .string()
    .url()
    .regex(/^https?:\/\/[^/?#]+\/?$/, "must be a base URL without a path, e.g. https://api.stripe.com")
    .default("https://api.stripe.com"),
  /** The dashboard's build (apps/web/dist of the checkout by default). */
  VANTAGE_WEB_DIR: z.string().min(1).optional(),
  VANTAGE_BILLING_GRACE_DAYS: z.coerce.number().int().min(0).max(60).default(7),
  VANTAGE_BILLING_REPORT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
});

export type Config = z.infer<typeof configSchema>;

/** Variables whose values an error message must not repeat. */
const secretVariables = new Set([
  "VANTAGE_SECRET_KEY",
  "VANTAGE_SECRET_KEYS_PREVIOUS",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
]);

/** Comma-separated secret keys (see parseSecretKey) → the keys; a message naming the bad entry otherwise. */
function parseSecretKeys(s: string): SecretKey[] | string {
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
function parseMeterEvents(s: string): Partial<Record<MeteredFamily, string>> | string {
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
function parseListen(s: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(s.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: (m[1] ?? m[2])!, port };
}

/**
 * `{"cn": "whois.cnnic.cn", "uk": "127.0.0.1:4343"}` → the map, keys lower-cased without a leading dot;
 * a message when it is not a JSON object of `host[:port]` strings.
 */
/** A dataset a URL refreshes: `tor_exits`, …, or `cloud_ranges/<provider>`. */
export interface ReputationSource {
  dataset: ReputationDatasetName;
  provider?: string;
  url: string;
}

/** `VANTAGE_REPUTATION_SOURCES`: `dataset=url` pairs, comma-separated; `none` or empty → none. */
function parseReputationSources(s: string): ReputationSource[] | string {
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

function parseWhoisServers(s: string): Record<string, string> | string {
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

export class ConfigError extends Error {}

/** Parses the environment; the first bad variable becomes one clear line naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    const value = cleaned[name] ?? "";
    const shown = secretVariables.has(name)
      ? `(${value.length} characters, not shown)`
      : JSON.stringify(value);
    throw new ConfigError(`invalid configuration: ${name}=${shown}: ${issue.message}`);
  }
  return parsed.data;
}
