import { z } from "@hono/zod-openapi";
import {
  dnsRecordTypes,
  HTTP_MAX_REQUEST_HEADERS,
  httpKeywordSchema,
  httpMethods,
  httpParamsConflicts,
  httpRequestBodySchema,
  httpRequestHeadersSchema,
  MTR_MAX_ROUNDS,
  mtrModes,
} from "@vantage/probes";
import { nodeIdPattern } from "@vantage/protocol";
import type { MonitorType } from "../../db/tables/monitors.js";
import type { ProbePlan, ProbesService } from "../probes/index.js";

/**
 * A monitor's `config`: type-specific settings, every key optional with the defaults below. The stored
 * config holds what the owner set (nothing more), so a changed default reaches every monitor that did not
 * set it; `withDefaults` gives the effective settings (what the API shows and what the runner reads).
 */

export const monitorTypes = [
  "http",
  "ping",
  "tcp",
  "dns",
  "traceroute",
  "mtr",
] as const satisfies readonly MonitorType[];

/** Most nodes a monitor runs on (named or counted). */
export const MAX_MONITOR_NODES = 10;

/** The defaults every type shares. */
export const commonDefaults = {
  node_count: 1,
  failure_threshold: 2,
  recovery_threshold: 1,
  confirm_failures: true,
} as const;

/**
 * The defaults per type. `expected_status: ["2xx", "3xx"]` is 200–399. Ping: a run fails when its packet
 * loss is above `max_loss_percent` (default 0: any loss fails), and always when every packet is lost.
 */
export const configDefaults = {
  http: {
    method: "GET",
    expected_status: ["2xx", "3xx"],
    keyword_absent: false,
    follow_redirects: false,
    timeout_ms: 10_000,
  },
  ping: { count: 3, max_loss_percent: 0, timeout_ms: 5000 },
  tcp: { timeout_ms: 5000 },
  dns: { record_type: "A", timeout_ms: 5000 },
  traceroute: { max_hops: 30 },
  // mtr: 5 rounds a run (5 s at the probe's 1 s interval); a run fails when the target is not reached or
  // the loss at its hop is above max_loss_percent.
  mtr: { mode: "icmp", rounds: 5, max_hops: 30, max_loss_percent: 0 },
} as const satisfies Record<MonitorType, Record<string, unknown>>;

const int = (min: number, max: number, description: string) =>
  z.number().int().min(min).max(max).openapi({ description });
const timeoutMs = (min: number, dflt: number) =>
  int(min, 30_000, `Milliseconds, ${min}–30000, default ${dflt}`);

const statusClass = z.enum(["1xx", "2xx", "3xx", "4xx", "5xx"]);
const statusCode = z.number().int().min(100).max(599);

const commonShape = {
  nodes: z
    .array(z.string().regex(nodeIdPattern, "not a node id"))
    .min(1, "omit nodes to have them chosen automatically")
    .max(MAX_MONITOR_NODES)
    .refine((ids) => new Set(ids).size === ids.length, "lists a node twice")
    .openapi({ description: `Run on these nodes (1–${MAX_MONITOR_NODES}); excludes node_count` }),
  node_count: int(
    1,
    MAX_MONITOR_NODES,
    `Nodes chosen automatically per run, 1–${MAX_MONITOR_NODES}, default 1`,
  ),
  locations: z
    .strictObject({
      countries: z
        .array(z.string().regex(/^[A-Z]{2}$/, "an ISO 3166 country code, e.g. DE"))
        .min(1)
        .max(50),
      regions: z.array(z.string().min(1).max(64)).min(1).max(50),
      providers: z.array(z.string().min(1).max(64)).min(1).max(50),
      selectors: z
        .array(z.string().min(1).max(200))
        .min(1)
        .max(10)
        .openapi({
          description:
            "Location selectors as probes take them (`europe`, `DE`, `hetzner+ipv6`, `AS13335`): a node must " +
            "match one of them; one naming nothing known matches no node",
        }),
    })
    .partial()
    .openapi({
      description:
        "Vantage extension: run only on online nodes in these countries, regions and providers (each list: " +
        "any of them; lists combine with and), `node_count` of them per run, spread over locations; excludes " +
        "nodes",
    }),
  quorum: int(
    1,
    MAX_MONITOR_NODES,
    "Vantage extension: a run fails when at least this many of its locations (nodes) fail, k of n, at most " +
      "the node count; default: unless more than half of them pass",
  ),
  confirm_failures: z.boolean().openapi({
    description:
      "Vantage extension, default true: a failing run that rests on one node is run again at once from " +
      "another node (of the same location filter) and counts only when that node fails too",
  }),
  failure_threshold: int(1, 10, "Runs failing in a row before the monitor is `down`, 1–10, default 2"),
  recovery_threshold: int(
    1,
    10,
    "Runs passing in a row before a `down` monitor is `up` again, 1–10, default 1",
  ),
};

/** The keys of each type (strict: any other key is a 400 `unknown_field`). */
const shapes = {
  http: {
    method: z.enum(httpMethods).openapi({ description: "Default GET" }),
    // The http probe's own schemas (plain zod, so `describe`, not `openapi`).
    headers: httpRequestHeadersSchema.describe(
      `Request headers, at most ${HTTP_MAX_REQUEST_HEADERS} (as the http probe takes them)`,
    ),
    body: httpRequestBodySchema.describe(
      "Request body, at most 64 KiB as UTF-8; only with POST, PUT, PATCH or DELETE",
    ),
    expected_status: z
      .array(
        z.union([statusCode, statusClass], { error: 'must be a status code 100–599 or a class ("2xx")' }),
      )
      .min(1)
      .max(20)
      .openapi({ description: 'Codes or classes that pass, e.g. `[200, "3xx"]`; default `["2xx", "3xx"]`' }),
    keyword: httpKeywordSchema.describe(
      "Text the response body must contain (see keyword_absent); not with HEAD",
    ),
    keyword_absent: z
      .boolean()
      .openapi({ description: "true: the run fails when the keyword appears; default false" }),
    follow_redirects: z.boolean().openapi({ description: "Follow redirects; default false" }),
    timeout_ms: timeoutMs(1000, 10_000),
  },
  ping: {
    count: int(1, 10, "Echo requests per run, 1–10, default 3"),
    max_loss_percent: int(0, 100, "The run fails when loss is above this (default 0) or total"),
    timeout_ms: timeoutMs(100, 5000),
  },
  tcp: {
    port: int(1, 65_535, "Needed when target has no port; folded into target (`host:port`)"),
    timeout_ms: timeoutMs(100, 5000),
  },
  dns: {
    record_type: z.enum(dnsRecordTypes).openapi({ description: "Default A" }),
    server: z
      .string()
      .min(1)
      .max(260)
      .openapi({ description: "DNS server (`host`, `host:port`); omitted = the node's resolver" }),
    expected_value: z
      .string()
      .min(1)
      .max(512)
      .openapi({ description: "The run fails when no answer equals this" }),
    timeout_ms: timeoutMs(100, 5000),
  },
  traceroute: {
    max_hops: int(1, 64, "1–64, default 30"),
  },
  mtr: {
    mode: z.enum(mtrModes).openapi({ description: "icmp (default), udp or tcp" }),
    port: int(1, 65_535, "udp/tcp only: the destination port (tcp default 80, udp 33434)"),
    rounds: int(1, MTR_MAX_ROUNDS, `Rounds a run, 1–${MTR_MAX_ROUNDS}, default 5`),
    max_hops: int(1, 64, "1–64, default 30"),
    max_loss_percent: int(
      0,
      100,
      "The run fails when the target's loss is above this (default 0) or it is not reached",
    ),
  },
} satisfies Record<MonitorType, z.ZodRawShape>;

function crossChecks(config: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (config.nodes !== undefined && config.node_count !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["node_count"],
      message: "nodes and node_count exclude each other",
    });
  if (config.nodes !== undefined && config.locations !== undefined)
    ctx.addIssue({ code: "custom", path: ["locations"], message: "nodes and locations exclude each other" });
  const count = Array.isArray(config.nodes) ? config.nodes.length : config.node_count;
  if (typeof config.quorum === "number" && config.quorum > (typeof count === "number" ? count : 1))
    ctx.addIssue({
      code: "custom",
      path: ["quorum"],
      message: "more than the monitor's nodes (node_count, or the nodes named)",
    });
  if (config.keyword_absent !== undefined && config.keyword === undefined)
    ctx.addIssue({ code: "custom", path: ["keyword_absent"], message: "needs a keyword" });
  const http = config as { method?: string; body?: string; keyword?: string };
  for (const { field, message } of httpParamsConflicts(http))
    ctx.addIssue({ code: "custom", path: [field], message });
}

/**
 * What a request may send where the answer shows a list: `expected_status` as one code or class (`200`,
 * `"2xx"`), taken as the list of it. Stored, and answered, as the list.
 */
const requestShapes = {
  ...shapes,
  http: {
    ...shapes.http,
    // One value is checked as the list of it, so a bad one is named like a list item (`expected_status.0`).
    expected_status: z.preprocess(
      (v) => (typeof v === "number" || typeof v === "string" ? [v] : v),
      shapes.http.expected_status,
    ),
  },
};

function configSchema<T extends MonitorType>(type: T) {
  return z
    .strictObject({ ...commonShape, ...requestShapes[type] })
    .partial()
    .superRefine(crossChecks);
}

const schemas = {
  http: configSchema("http"),
  ping: configSchema("ping"),
  tcp: configSchema("tcp"),
  dns: configSchema("dns"),
  traceroute: configSchema("traceroute"),
  mtr: configSchema("mtr"),
};

export type MonitorConfigs = { [K in MonitorType]: z.infer<(typeof schemas)[K]> };
export type MonitorConfig = MonitorConfigs[MonitorType];

/**
 * The effective config as answers show it: the same fields, without the cross-checks a request must pass
 * (the defaults fill `keyword_absent: false` on an http monitor that has no keyword).
 */
const viewSchemas = {
  http: z
    .strictObject({ ...commonShape, ...shapes.http })
    .partial()
    .openapi("MonitorConfigHttp"),
  ping: z
    .strictObject({ ...commonShape, ...shapes.ping })
    .partial()
    .openapi("MonitorConfigPing"),
  tcp: z
    .strictObject({ ...commonShape, ...shapes.tcp })
    .partial()
    .openapi("MonitorConfigTcp"),
  dns: z
    .strictObject({ ...commonShape, ...shapes.dns })
    .partial()
    .openapi("MonitorConfigDns"),
  traceroute: z
    .strictObject({ ...commonShape, ...shapes.traceroute })
    .partial()
    .openapi("MonitorConfigTraceroute"),
  mtr: z
    .strictObject({ ...commonShape, ...shapes.mtr })
    .partial()
    .openapi("MonitorConfigMtr"),
};

/** The schema of a monitor type's effective config in answers. */
export function monitorConfigViewSchema<T extends MonitorType>(type: T): (typeof viewSchemas)[T] {
  return viewSchemas[type];
}

/** The config schema of a monitor type (strict). */
export function monitorConfigSchema<T extends MonitorType>(type: T): (typeof schemas)[T] {
  return schemas[type];
}

/** The config keys a type takes. */
export function configKeys(type: MonitorType): string[] {
  return [...Object.keys(commonShape), ...Object.keys(shapes[type])];
}

/** The effective settings: the stored config over the defaults; `node_count` only when no nodes are named. */
export function withDefaults<T extends MonitorType>(
  type: T,
  config: MonitorConfigs[T] | Record<string, unknown>,
): MonitorConfigs[T] {
  const { node_count, ...common } = commonDefaults;
  const merged: Record<string, unknown> = { ...common, ...configDefaults[type], ...config };
  if (merged.nodes === undefined) merged.node_count = config.node_count ?? node_count;
  return merged as MonitorConfigs[T];
}

/** What `ProbesService.plan` takes: a Form A-shaped probe body. */
export interface ProbeBody {
  target: string;
  node_ids?: string[];
  params: Record<string, unknown>;
}

/**
 * The probe a monitor runs, as a Form A probe body: the probe's own settings from the config (defaults
 * applied, since a probe's defaults differ from a monitor's), without what only judges the outcome
 * (`expected_status`, `keyword_absent`, `max_loss_percent`, `expected_value`, thresholds). DNS's
 * `timeout_ms` is not a Form A probe field: `planMonitorProbe` sets it on the planned spec.
 */
export function probeBodyOf(monitor: {
  type: MonitorType;
  target: string;
  config: Record<string, unknown>;
}): ProbeBody {
  const c: Record<string, unknown> = withDefaults(monitor.type, monitor.config);
  const pick = (...keys: string[]) =>
    Object.fromEntries(keys.filter((k) => c[k] !== undefined).map((k) => [k, c[k]]));
  const params = {
    http: () => pick("method", "timeout_ms", "follow_redirects", "headers", "body", "keyword"),
    ping: () => pick("count", "timeout_ms"),
    tcp: () => pick("port", "timeout_ms"),
    dns: () => pick("record_type", "server"),
    traceroute: () => pick("max_hops"),
    mtr: () => pick("mode", "port", "rounds", "max_hops"),
  }[monitor.type]();
  const nodes = c.nodes as string[] | undefined;
  return { target: monitor.target, ...(nodes ? { node_ids: nodes } : {}), params };
}

/**
 * The monitor's probe, planned and checked by the probes service (the same validation and target guard as
 * API probes). `path` prefixes the paths of its errors (see `ProbesService.plan`).
 */
export function planMonitorProbe(
  probes: Pick<ProbesService, "plan">,
  monitor: { type: MonitorType; target: string; config: Record<string, unknown> },
  path: string,
): ProbePlan {
  const plan = probes.plan(monitor.type, probeBodyOf(monitor), path);
  if (plan.spec.type !== "dns") return plan;
  const timeout = withDefaults("dns", monitor.config).timeout_ms ?? configDefaults.dns.timeout_ms;
  return { ...plan, spec: { ...plan.spec, params: { ...plan.spec.params, timeout_ms: timeout } } };
}
