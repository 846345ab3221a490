import type { DnsRecordType } from "@vantage/probes";
import { withDefaults } from "./config.js";
import type { Monitor } from "./service.js";
import type { StaleSpell } from "./stale.js";

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

/** What both forms show of a monitor's state and times. */
function stateOf(m: Monitor) {
  return {
    state: m.state,
    state_reason: m.state === "unknown" ? (m.state_reason ?? null) : null,
    state_changed_at: iso(m.state_changed_at),
    last_run_at: iso(m.last_slot),
    // A paused monitor has no next run.
    next_run_at: m.status === "paused" ? null : iso(m.next_run_at),
    paused_reason: m.status === "paused" ? (m.paused_reason ?? null) : null,
    created_at: iso(m.created_at) as string,
    updated_at: iso(m.updated_at) as string,
  };
}

export function toMonitorA(m: Monitor) {
  return {
    id: m.id,
    name: m.name,
    type: m.type,
    target: m.target,
    status: m.status,
    interval_s: m.interval_s,
    config: withDefaults(m.type, m.config),
    ...stateOf(m),
  };
}

/** A TCP monitor's stored target, `host:port` or `[v6]:port`, split. */
export function splitTcpTarget(target: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(target);
  if (!m) return { host: target, port: 0 };
  return { host: (m[1] ?? m[2])!, port: Number(m[3]) };
}

/**
 * Form B names a monitor's target as its probe bodies do (`host`; `host` and `port`; `domain` with
 * `record_type` and `server`) next to `url`, which is the URL for http and the target text otherwise. The
 * DNS fields shown at the top level are left out of `config`.
 */
export function toMonitorB(m: Monitor) {
  let fields: TargetFieldsB = {};
  let config: Record<string, unknown> = withDefaults(m.type, m.config);
  if (m.type === "ping" || m.type === "traceroute" || m.type === "mtr") fields = { host: m.target };
  else if (m.type === "tcp") fields = splitTcpTarget(m.target);
  else if (m.type === "dns") {
    const { record_type, server, ...rest } = withDefaults("dns", m.config);
    fields = { domain: m.target, record_type: record_type ?? "A", server: server ?? null };
    config = rest;
  }
  return { ...common(m), ...fields, config, ...stateOf(m) };
}

interface TargetFieldsB {
  host?: string;
  port?: number;
  domain?: string;
  record_type?: DnsRecordType;
  server?: string | null;
}

function common(m: Monitor) {
  return { id: m.id, name: m.name, type: m.type, url: m.target, status: m.status, interval: m.interval_s };
}

export function toStatusResult(m: Monitor) {
  return { id: m.id, status: m.status };
}

/** A stale spell as both forms show it (`staleGap` in schemas.ts): ISO times, `to` null while it lasts. */
export function toGapView(g: StaleSpell) {
  return { from: g.from.toISOString(), to: g.to?.toISOString() ?? null, reason: g.reason };
}
