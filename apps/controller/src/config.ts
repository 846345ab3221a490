import { parseDnsblZones } from "@vantage/lookups";
import { z } from "zod";
import {
  parseListen,
  parseMeterEvents,
  parseReputationSources,
  parseSecretKeys,
  parseWhoisServers,
} from "./config-values.js";
import { parsePlanLimits } from "./lib/plans.js";
import { parseSecretKey } from "./lib/secret-box.js";

/** The controller's roles; each runs its own share of the work (see runtime.ts). */
export const roles = ["api", "scheduler", "notifier", "presence"] as const;
export type Role = (typeof roles)[number];

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

/** The variables marked by `secret()`: their values may hold a credential. */
const secretSchemas = new WeakSet<z.ZodType>();

/**
 * Marks a variable as secret where it is defined: a bad value is refused with its length only, never
 * shown (it may be a password, a key, or a URL with one in it). Wrap the variable's whole schema.
 */
function secret<T extends z.ZodType>(schema: T): T {
  secretSchemas.add(schema);
  return schema;
}

/** HTTP server, process and logging. */
const server = {
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
  /** The dashboard's build (apps/web/dist of the checkout by default). */
  VANTAGE_WEB_DIR: z.string().min(1).optional(),
  VANTAGE_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  VANTAGE_ACCESS_LOG: bool.default(true),
  VANTAGE_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  VANTAGE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
};

/** Who may read `/metrics`, and where it is served. */
const metrics = {
  VANTAGE_METRICS_TOKEN: secret(
    z
      .string()
      .min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)")
      .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
      .optional(),
  ),
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
};

/** PostgreSQL, or the embedded PGlite in the data directory. */
const database = {
  DATABASE_URL: secret(
    z
      .string()
      .regex(
        /^postgres(ql)?:\/\/\S+$/,
        "must be a postgres:// URL without spaces (percent-encode them in a password: %20)",
      )
      .optional(),
  ),
  VANTAGE_DATA_DIR: z.string().min(1).default("./.vantage"),
  VANTAGE_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  VANTAGE_DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
};

/** The transport to the agents: NATS, or the in-process one with a local agent. */
const nats = {
  /** Comma-separated server URLs; one may carry `user:password@` (logged with it masked). */
  NATS_URL: secret(z.string().min(1).optional()),
  NATS_NO_RANDOMIZE: bool.default(false),
  NATS_CREDS_FILE: z.string().min(1).optional(),
  NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  VANTAGE_ALLOW_OPEN_NATS: bool.default(false),
};

/** Node choice, the target guard, presence and live result streams. */
const probes = {
  VANTAGE_DEFAULT_NODES: z.coerce.number().int().min(1).max(50).default(3),
  VANTAGE_ALLOW_PRIVATE_TARGETS: bool.default(false),
  VANTAGE_NODE_OFFLINE_AFTER_MS: z.coerce.number().int().min(1000).max(600_000).default(15_000),
  /** A controller whose lease goes unrenewed this long is dead: its tasks are failed, its log stored. */
  VANTAGE_CONTROLLER_LEASE_MS: z.coerce.number().int().min(2000).max(600_000).default(20_000),
  /** Comment lines (`: keep-alive`) on live probe streams (SSE) this often, so proxies keep them open. */
  VANTAGE_SSE_HEARTBEAT_MS: z.coerce.number().int().min(1000).max(300_000).default(15_000),
};

/** IP data, RDAP/WHOIS, DNS and ICP lookups. */
const lookups = {
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
  VANTAGE_ICP_PROVIDER_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, "must be an http(s) URL")
    .optional(),
  VANTAGE_ICP_PROVIDER_KEY: secret(
    z
      .string()
      .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces (it is sent as a Bearer token)")
      .optional(),
  ),
};

/** IP reputation: datasets, their refresh, DNSBLs and reverse DNS. */
const reputation = {
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
};

/** The scheduler role's claims and the retention of monitor runs. */
const monitors = {
  VANTAGE_MONITOR_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  VANTAGE_SCHEDULER_TICK_MS: z.coerce.number().int().min(20).max(10_000).default(250),
  VANTAGE_SCHEDULER_BATCH: z.coerce.number().int().min(1).max(10_000).default(1000),
};

/** The notifier role's deliveries and alert channels' remotes and test sends. */
const alerts = {
  VANTAGE_ALERTS_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** A minute of escalation steps, in ms: 60 000; shorter for tests and on-call drills. */
  VANTAGE_ALERTS_ESCALATION_MINUTE_MS: z.coerce.number().int().min(10).max(60_000).default(60_000),
  VANTAGE_PAGERDUTY_URL: z.string().url().default("https://events.pagerduty.com/v2/enqueue"),
  VANTAGE_SMS_API_URL: z.string().url().default("https://api.twilio.com"),
  /** Alert channel test sends per hour, per channel and per account. */
  VANTAGE_ALERT_TEST_LIMIT_CHANNEL: z.coerce.number().int().min(1).max(1_000_000).default(10),
  VANTAGE_ALERT_TEST_LIMIT_ACCOUNT: z.coerce.number().int().min(1).max(1_000_000).default(30),
};

/** Tokens, the key that seals secrets at rest, and registration limits. */
const accounts = {
  VANTAGE_JWT_SECRET: secret(z.string().min(32, "must be at least 32 characters").optional()),
  VANTAGE_SECRET_KEY: secret(
    z
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
  ),
  VANTAGE_SECRET_KEYS_PREVIOUS: secret(
    z
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
  ),
  VANTAGE_REGISTER_LIMIT_IP: z.coerce.number().int().min(0).max(1_000_000_000).default(10),
  VANTAGE_REGISTER_LIMIT_EMAIL: z.coerce.number().int().min(0).max(1_000_000_000).default(3),
};

/** Outgoing mail (verification, password resets, email alert channels). */
const mail = {
  SMTP_URL: secret(
    z
      .string()
      .regex(
        /^smtps?:\/\/\S+$/,
        "must be an smtp:// or smtps:// URL without spaces (percent-encode them in a password: %20)",
      )
      .optional(),
  ),
  SMTP_FROM: z.string().min(3).default("Vantage <no-reply@vantage.invalid>"),
};

/** The plan table and the counters that enforce it across controllers. */
const limits = {
  /** The whole plan table: the defaults (lib/plans.ts) with what this JSON changes; never unset. */
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
  /** Refused requests (400, 413, 415) per client IP and minute before its bodies are refused unread; 0 = off. */
  VANTAGE_REFUSED_LIMIT_IP: z.coerce.number().int().min(0).max(1_000_000_000).default(60),
  /** Live result streams (SSE) open at once in this process, per client IP and per account. */
  VANTAGE_STREAMS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20),
  VANTAGE_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(20),
};

const stripePrice = () =>
  z
    .string()
    .regex(/^price_\w+$/, "must be a Stripe price id (price_…)")
    .optional();

/** Stripe; every variable unset → billing is off. */
const billing = {
  STRIPE_SECRET_KEY: secret(
    z
      .string()
      .regex(/^(sk|rk)_[A-Za-z0-9_]+$/, "must be a Stripe secret or restricted key (sk_… or rk_…)")
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: secret(
    z
      .string()
      .regex(/^whsec_\S+$/, "must be a webhook signing secret (whsec_…)")
      .optional(),
  ),
  STRIPE_PRICE_PRO: stripePrice(),
  STRIPE_PRICE_BUSINESS: stripePrice(),
  /** Metered price added to every checkout (usage reported through billing meters), when set. */
  STRIPE_PRICE_METERED: stripePrice(),
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
  VANTAGE_BILLING_GRACE_DAYS: z.coerce.number().int().min(0).max(60).default(7),
  VANTAGE_BILLING_REPORT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
};

/**
 * The variables by section, in the README's order: the README's configuration table has one `### <title>`
 * part per section, and config.test.ts checks each variable is documented in its own section's part.
 */
export const configSections = [
  { title: "Server", variables: server },
  { title: "Metrics", variables: metrics },
  { title: "Database", variables: database },
  { title: "NATS", variables: nats },
  { title: "Probes and nodes", variables: probes },
  { title: "Lookups", variables: lookups },
  { title: "Reputation", variables: reputation },
  { title: "Monitors", variables: monitors },
  { title: "Alerts", variables: alerts },
  { title: "Accounts and secrets", variables: accounts },
  { title: "Mail", variables: mail },
  { title: "Limits", variables: limits },
  { title: "Billing", variables: billing },
] as const;

/** Every environment variable the controller reads, with its default (see configSections). */
export const configSchema = z.object({
  ...server,
  ...metrics,
  ...database,
  ...nats,
  ...probes,
  ...lookups,
  ...reputation,
  ...monitors,
  ...alerts,
  ...accounts,
  ...mail,
  ...limits,
  ...billing,
});

export type Config = z.infer<typeof configSchema>;
export { type MeteredFamily, meteredFamilies, type ReputationSource } from "./config-values.js";

/** Whether the variable is marked `secret()`: its value must never appear in a message or a log. */
export function isSecret(name: string): boolean {
  const schema = (configSchema.shape as Record<string, z.ZodType>)[name];
  return schema !== undefined && secretSchemas.has(schema);
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
    if (!isSecret(name)) {
      throw new ConfigError(`invalid configuration: ${name}=${JSON.stringify(value)}: ${issue.message}`);
    }
    // A secret's checks never quote it; should one ever do, the value is cut out of its words too.
    const message = value.length >= 4 ? issue.message.replaceAll(value, "…") : issue.message;
    throw new ConfigError(
      `invalid configuration: ${name}=(${value.length} characters, not shown): ${message}`,
    );
  }
  return parsed.data;
}
