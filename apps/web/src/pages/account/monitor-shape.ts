import { call, callAllPages, form, pagePath } from "../../api.js";

/**
 * Monitors as both API forms answer them, and the create body each form takes. Form A names the target
 * `target` and the interval `interval_s`; Form B `url` (or `host`/`port`/`domain` by type) and `interval`,
 * with a dns monitor's `record_type` at the top level. Everything else is the same.
 */
export const monitorTypes = ["http", "ping", "tcp", "dns", "traceroute", "mtr"] as const;
export type MonitorType = (typeof monitorTypes)[number];
export type MonitorState = "unknown" | "up" | "down";

export interface Monitor {
  id: string;
  name: string;
  type: MonitorType;
  status: "active" | "paused";
  state: MonitorState;
  state_changed_at: string | null;
  last_run_at: string | null;
  next_run_at: string | null;
  created_at: string;
  config: Record<string, unknown>;
  /** Form A. */
  target?: string;
  interval_s?: number;
  /** Form B. */
  url?: string;
  interval?: number;
  record_type?: string;
}

export interface MonitorPage {
  items: Monitor[];
  total: number;
  page: number;
}

export { pageSize } from "../../api.js";

export const targetOf = (m: Monitor): string => (form === "a" ? m.target : m.url) ?? "";
export const intervalOf = (m: Monitor): number => (form === "a" ? m.interval_s : m.interval) ?? 0;

export function listMonitors(page = 1, size = 100): Promise<MonitorPage> {
  return call<MonitorPage>("GET", pagePath("/v1/monitors", page, size));
}

/** Every monitor of the account (a Business account may have 1,000): the alerts page's pickers name all. */
export const listAllMonitors = (): Promise<MonitorPage> => callAllPages<Monitor>("/v1/monitors");

/** What the create form collects; empty strings are "not given" (the API's defaults apply). */
export interface MonitorInput {
  name: string;
  type: MonitorType;
  /** http: the URL; ping, traceroute, mtr, tcp: the host; dns: the domain. */
  target: string;
  /** tcp. */
  port: string;
  interval: string;
  /** dns. */
  recordType: string;
  /** The type's other settings, already typed (numbers as numbers). */
  config: Record<string, unknown>;
}

export function createBody(i: MonitorInput): Record<string, unknown> {
  const interval = i.interval.trim() === "" ? undefined : Number(i.interval);
  const port = i.port.trim() === "" ? undefined : Number(i.port);
  const target = i.target.trim();
  const config = { ...i.config };
  if (form === "a") {
    if (i.type === "tcp" && port !== undefined) config.port = port;
    if (i.type === "dns" && i.recordType) config.record_type = i.recordType;
    return {
      name: i.name.trim(),
      type: i.type,
      target,
      ...(interval !== undefined ? { interval_s: interval } : {}),
      ...(Object.keys(config).length ? { config } : {}),
    };
  }
  const where: Record<string, unknown> =
    i.type === "http"
      ? { url: target }
      : i.type === "dns"
        ? { domain: target, ...(i.recordType ? { record_type: i.recordType } : {}) }
        : i.type === "tcp"
          ? { host: target, ...(port !== undefined ? { port } : {}) }
          : { host: target };
  return {
    name: i.name.trim(),
    type: i.type,
    ...where,
    ...(interval !== undefined ? { interval } : {}),
    ...(Object.keys(config).length ? { config } : {}),
  };
}

/** The API's field paths that belong to each input of the create form (for `aria-invalid`). */
export const fieldPaths = {
  target: ["body.target", "body.url", "body.host", "body.domain"],
  port: ["body.port", "body.config.port"],
  interval: ["body.interval_s", "body.interval"],
  name: ["body.name"],
};

export interface RunNode {
  node_id: string;
  success: boolean;
  latency_ms: number | null;
  error_code: string | null;
  /** The HTTP status a failed http run was answered with, where the API gives it. */
  status_code?: number | null;
}
export interface Run {
  slot: string;
  success: boolean;
  nodes: RunNode[];
}
export interface Uptime {
  window: "24h" | "7d" | "30d";
  from: string;
  to: string;
  runs: number;
  failures: number;
  uptime_percent: number | null;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  state: MonitorState;
  state_changed_at: string | null;
  nodes: {
    node_id: string;
    state: "up" | "down";
    last_slot: string;
    error_code: string | null;
    status_code?: number | null;
  }[];
}
