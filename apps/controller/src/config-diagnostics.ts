import { parseDnsblZones } from "@vantage/lookups";
import { z } from "zod";
import { parseReputationSources, parseWhoisServers } from "./config-values.js";
import { bool, secret } from "./config-variable.js";

/** Node choice, the target guard, presence and live result streams. */
export const probes = {
  VANTAGE_DEFAULT_NODES: z.coerce.number().int().min(1).max(50).default(3),
  VANTAGE_ALLOW_PRIVATE_TARGETS: bool.default(false),
  VANTAGE_NODE_OFFLINE_AFTER_MS: z.coerce.number().int().min(1000).max(600_000).default(15_000),
  /** A controller whose lease goes unrenewed this long is dead: its tasks are failed, its log stored. */
  VANTAGE_CONTROLLER_LEASE_MS: z.coerce.number().int().min(2000).max(600_000).default(20_000),
  /** Comment lines (`: keep-alive`) on live probe streams (SSE) this often, so proxies keep them open. */
  VANTAGE_SSE_HEARTBEAT_MS: z.coerce.number().int().min(1000).max(300_000).default(15_000),
  /** Days a probe task and its results are kept (a task with a live share link stays); 0 keeps them all. */
  VANTAGE_PROBE_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
};

/** IP data, RDAP/WHOIS, DNS and ICP lookups. */
export const lookups = {
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
export const reputation = {
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
export const monitors = {
  VANTAGE_MONITOR_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  VANTAGE_SCHEDULER_TICK_MS: z.coerce.number().int().min(20).max(10_000).default(250),
  VANTAGE_SCHEDULER_BATCH: z.coerce.number().int().min(1).max(10_000).default(1000),
};

/** The notifier role's deliveries and alert channels' remotes and test sends. */
export const alerts = {
  VANTAGE_ALERTS_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** A minute of escalation steps, in ms: 60 000; shorter for tests and on-call drills. */
  VANTAGE_ALERTS_ESCALATION_MINUTE_MS: z.coerce.number().int().min(10).max(60_000).default(60_000),
  VANTAGE_PAGERDUTY_URL: z.string().url().default("https://events.pagerduty.com/v2/enqueue"),
  VANTAGE_SMS_API_URL: z.string().url().default("https://api.twilio.com"),
  /** Alert channel test sends per hour, per channel and per account. */
  VANTAGE_ALERT_TEST_LIMIT_CHANNEL: z.coerce.number().int().min(1).max(1_000_000).default(10),
  VANTAGE_ALERT_TEST_LIMIT_ACCOUNT: z.coerce.number().int().min(1).max(1_000_000).default(30),
};
