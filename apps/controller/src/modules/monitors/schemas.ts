import { z } from "@hono/zod-openapi";
import { dnsRecordTypes } from "@vantage/probes";
import { pageFieldsA, pageFieldsB } from "../../http/page-schemas.js";
import { monitorConfigViewSchema, monitorTypes } from "./config.js";
import { MAX_INTERVAL_S } from "./service.js";

// ---- request parts both forms share ----

const charCount = (s: string) => [...s].length;

const nameField = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .refine((s) => charCount(s) <= 100, "must be at most 100 characters")
  .openapi({ maxLength: 100, example: "Homepage" });

const typeField = z.enum(monitorTypes).openapi({ description: "http, ping, tcp, dns, traceroute or mtr" });

const intervalField = (name: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(MAX_INTERVAL_S)
    .openapi({
      description:
        `Seconds between runs, up to ${MAX_INTERVAL_S}; at least the plan's \`min_monitor_interval_s\` ` +
        `(free 30, pro 15, business 10: shorter → 400 on \`body.${name}\` naming the minimum)`,
      example: 60,
    });

const CONFIG_KEYS =
  "Every type: `nodes` (node ids, 1–10) or `node_count` (1–10, default 1), `failure_threshold` (1–10, " +
  "default 2), `recovery_threshold` (1–10, default 1). http: `method`, `headers` (≤ 20), `body` (≤ 64 KiB), " +
  '`expected_status` (a list of codes or classes, default `["2xx","3xx"]`; one code or class is taken as ' +
  "the list of it: `200` is `[200]`, answered as the list), `keyword` with `keyword_absent`, " +
  "`follow_redirects`, `timeout_ms` (1000–30000, default 10000). ping: `count` (1–10, default 3), " +
  "`max_loss_percent` (0–100, default 0), `timeout_ms`. tcp: `port`, `timeout_ms`. dns: `record_type`, " +
  "`server`, `expected_value`, `timeout_ms`. traceroute: `max_hops` (1–64, default 30). mtr: `mode` " +
  "(icmp, udp, tcp), `port` (udp/tcp), `rounds` (1–100, default 5), `max_hops`, `max_loss_percent` (0–100, " +
  "default 0: the run fails when the target is not reached or its loss is above it). Any other key → 400 " +
  "`unknown_field`. The schemas MonitorConfigHttp, …Ping, …Tcp, …Dns, …Traceroute, …Mtr list them.";

const configField = z.record(z.string(), z.unknown()).openapi({
  description: `Type-specific settings, validated per type. ${CONFIG_KEYS}`,
});

const configPatchField = z.record(z.string(), z.unknown()).openapi({
  description:
    "Merged into the monitor's config key by key; `null` returns a key to its default; naming `nodes` " +
    "drops `node_count` and the other way round. The result is validated as on creation.",
});

const idExample = "mon_0mhx3k2a9f1e2d3c4b5a6978";

export const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: idExample }),
});

// ---- Form A ----

export const createBodyA = z
  .strictObject({
    name: nameField,
    type: typeField,
    target: z.string().min(1).max(2048).openapi({
      description: "URL (http), host or IP (ping, traceroute), `host:port` (tcp), domain (dns)",
      example: "https://example.com/",
    }),
    config: configField.optional(),
    interval_s: intervalField("interval_s").optional(),
  })
  .openapi("MonitorCreateA");

export const patchBodyA = z
  .strictObject({
    name: nameField.optional(),
    interval_s: intervalField("interval_s").optional(),
    config: configPatchField.optional(),
  })
  .openapi("MonitorPatchA", { description: "Omitted fields are unchanged; any other field → 400." });

/** Monitors per page when the query names none. */
export const MONITORS_PAGE = 20;

/** The list's query in each form (the route is http/route-kit.ts's; MCP's list tool takes the same). */
export const listQueryA = z.object(pageFieldsA(MONITORS_PAGE));

// ---- Form B ----

export const createBodyB = z
  .strictObject({
    name: nameField,
    type: typeField,
    url: z
      .string()
      .min(1)
      .max(2048)
      .optional()
      .openapi({
        description:
          "Required for http: the URL. Other types may give their target here as Form A's text (`host`, " +
          "`host:port`, domain) instead of host/port/domain.",
        example: "https://example.com/",
      }),
    host: z.string().min(1).max(255).optional().openapi({ description: "ping, traceroute, tcp: host or IP" }),
    port: z.number().int().min(1).max(65_535).optional().openapi({ description: "tcp: 1–65535" }),
    domain: z.string().min(1).max(253).optional().openapi({ description: "dns: the name asked for" }),
    record_type: z.enum(dnsRecordTypes).optional().openapi({ description: "dns: default A" }),
    server: z
      .string()
      .min(1)
      .max(260)
      .optional()
      .openapi({ description: "dns: server; omitted = the node's" }),
    interval: intervalField("interval").optional().openapi({ description: "Seconds, default 60" }),
    config: configField.optional(),
  })
  .openapi("MonitorCreateB");

export const patchBodyB = z
  .strictObject({
    name: nameField.optional(),
    interval: intervalField("interval").optional(),
    record_type: z.enum(dnsRecordTypes).nullable().optional().openapi({ description: "dns only" }),
    server: z
      .string()
      .min(1)
      .max(260)
      .nullable()
      .optional()
      .openapi({ description: "dns only; null clears" }),
    config: configPatchField.optional(),
  })
  .openapi("MonitorPatchB", { description: "Omitted fields are unchanged; any other field → 400." });

export const listQueryB = z.object(pageFieldsB(MONITORS_PAGE));

// ---- responses ----

const configView = z
  .union([
    monitorConfigViewSchema("http"),
    monitorConfigViewSchema("ping"),
    monitorConfigViewSchema("tcp"),
    monitorConfigViewSchema("dns"),
    monitorConfigViewSchema("traceroute"),
    monitorConfigViewSchema("mtr"),
  ])
  .openapi({ description: "The effective settings: what was set, defaults for the rest" });

const stateFields = {
  state: z.enum(["unknown", "up", "down"]).openapi({
    description: "`unknown` until runs decide, and again when no run completed for two intervals",
  }),
  state_reason: z
    .enum(["no_nodes", "scheduler_behind", "paused_by_system"])
    .nullable()
    .openapi({
      description:
        "Vantage extension, both forms. Why the state is `unknown` although the monitor has run: no run " +
        "completed for two intervals because no node could run it (`no_nodes`), no scheduler claimed its " +
        "slots (`scheduler_behind`) or the system paused it (`paused_by_system`). Null while runs decide " +
        "(and for a new monitor's first runs)",
    }),
  state_changed_at: z.string().nullable().openapi({ description: "ISO 8601 UTC; null while unknown" }),
  last_run_at: z.string().nullable().openapi({ description: "The newest run slot applied; ISO 8601 UTC" }),
  next_run_at: z.string().nullable().openapi({ description: "ISO 8601 UTC; null while paused" }),
  paused_reason: z
    .enum(["agent_crash"])
    .nullable()
    .openapi({
      description:
        "Vantage extension, both forms. Why the system paused the monitor: `agent_crash` when a run was in " +
        "flight on a node whose agent crashed (the run may be the cause; resume once it is understood). Null " +
        "when it runs or a person paused it",
    }),
  created_at: z.string(),
  updated_at: z.string(),
};

const statusField = z.enum(["active", "paused"]);

export const monitorA = z
  .object({
    id: z.string().openapi({ example: idExample }),
    name: z.string(),
    type: typeField,
    target: z.string().openapi({ description: "A TCP target always carries its port" }),
    status: statusField,
    interval_s: z.number().int(),
    config: configView,
    ...stateFields,
  })
  .openapi("MonitorA");

export const monitorB = z
  .object({
    id: z.string().openapi({ example: idExample }),
    name: z.string(),
    type: typeField,
    url: z.string().openapi({
      description: "http: the URL; other types: the target text (`host`, `host:port`, the domain)",
    }),
    status: statusField,
    interval: z.number().int(),
    host: z.string().optional().openapi({ description: "ping, traceroute, tcp" }),
    port: z.number().int().optional().openapi({ description: "tcp" }),
    domain: z.string().optional().openapi({ description: "dns" }),
    record_type: z.enum(dnsRecordTypes).optional().openapi({ description: "dns" }),
    server: z.string().nullable().optional().openapi({ description: "dns; null = the node's resolver" }),
    config: z.record(z.string(), z.unknown()).openapi({
      description: "The effective settings, without those shown at the top level",
    }),
    ...stateFields,
  })
  .openapi("MonitorB");

export const pausedResult = z
  .object({ id: z.string(), status: z.literal("paused") })
  .openapi("MonitorPaused");
export const resumedResult = z
  .object({ id: z.string(), status: z.literal("active") })
  .openapi("MonitorResumed");

// ---- stale spells (honest state): the same entry in the uptime and in the results list ----

const staleReasons = ["no_nodes", "scheduler_behind", "paused_by_system"] as const;

/**
 * One stale spell (issue #29): no run completed from `from` to `to`, and why. Both the uptime's `gaps` and
 * the results list's `gaps` use it, so a reader of either sees the same "no data from A to B, reason X".
 */
export const staleGap = z
  .object({
    from: z.string().openapi({
      description: "When the monitor was found stale (two intervals after its last completed run's slot)",
      format: "date-time",
    }),
    to: z.string().nullable().openapi({
      description: "When a run decided its state again; null while the gap lasts",
      format: "date-time",
    }),
    reason: z.enum(staleReasons).openapi({
      description: "`no_nodes`, `scheduler_behind` or `paused_by_system` (as the monitor's `state_reason`)",
    }),
  })
  .openapi("MonitorGap");
