import type { ProbeJobSpec } from "@vantage/probes";
import type { Logger } from "pino";

/** How long a probe that crashed an agent is refused (every node), unless the controller restarts. */
export const QUARANTINE_MS = 15 * 60_000;
const MAX_ENTRIES = 10_000;
const REFUSAL_LOG_INTERVAL_MS = 60_000;

interface Entry {
  until: number;
  nodeId: string;
  jobId: string;
  at: number;
  lastLogged: number;
}

/**
 * Probes that were in flight when an agent crashed (its crash notice listed them, or a fatal signal ended
 * the embedded agent's process). Such a probe may be what ended the agent, so the same job spec (type and
 * parameters) is not sent to any node for QUARANTINE_MS: each node's entry answers `probe_quarantined`
 * instead, and a log line says why. Kept in this controller's memory (a restart forgets it; monitors are
 * paused in the database, see the monitors' scheduler).
 */
export class ProbeQuarantine {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly ms = QUARANTINE_MS,
  ) {}

  add(spec: ProbeJobSpec, nodeId: string, jobId: string): void {
    const key = fingerprint(spec);
    const now = this.now();
    if (this.entries.size >= MAX_ENTRIES) this.sweep(now);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, { until: now + this.ms, nodeId, jobId, at: now, lastLogged: now });
    this.log.error(
      { node_id: nodeId, job_id: jobId, type: spec.type, params: spec.params, quarantined_for_ms: this.ms },
      "probe quarantined: it was running when its node's agent crashed; the same probe is refused on every " +
        `node for ${Math.round(this.ms / 60_000)} min`,
    );
  }

  /** The refusal's message when `spec` is held back now, else undefined. */
  check(spec: ProbeJobSpec, nodeId: string): string | undefined {
    if (this.entries.size === 0) return undefined;
    const key = fingerprint(spec);
    const e = this.entries.get(key);
    if (!e) return undefined;
    const now = this.now();
    if (now >= e.until) {
      this.entries.delete(key);
      return undefined;
    }
    if (now - e.lastLogged >= REFUSAL_LOG_INTERVAL_MS) {
      e.lastLogged = now;
      this.log.warn(
        { node_id: nodeId, type: spec.type, crashed_node: e.nodeId, crashed_job: e.jobId },
        "quarantined probe refused",
      );
    }
    return (
      `not sent to node ${nodeId}: the same probe was running when node ${e.nodeId}'s agent crashed at ` +
      `${new Date(e.at).toISOString()}; it is refused until ${new Date(e.until).toISOString()}`
    );
  }

  private sweep(now: number): void {
    for (const [k, e] of this.entries) if (now >= e.until) this.entries.delete(k);
  }
}

/** A job spec's identity: its type and parameters, keys sorted. */
export function fingerprint(spec: ProbeJobSpec): string {
  return JSON.stringify(spec, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
