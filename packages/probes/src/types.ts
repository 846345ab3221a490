import type * as z from "zod";
import type { ProbeJobSpec } from "./probe-params.js";
import type { ProbeError, ProbeResultByType } from "./probe-results.js";

/**
 * The internal probe model: what the controller sends in a job and what an agent sends back. Both API forms
 * map onto it; the NATS protocol carries it. Times are milliseconds with sub-millisecond precision.
 */
export const probeTypes = ["http", "ping", "dns", "tcp", "traceroute", "mtr"] as const;
export type ProbeType = (typeof probeTypes)[number];

/**
 * What one probe run yields. `latency_ms` is the headline figure per type (http total, ping avg RTT, dns
 * query time, tcp connect time, traceroute RTT to the target), null when there is none.
 * `detail` is present whenever the probe got far enough to say something (even on failure).
 */
export interface ProbeOutcome<T extends ProbeType = ProbeType> {
  success: boolean;
  latency_ms: number | null;
  error: ProbeError | null;
  detail: ProbeResultByType[T] | null;
}

/** Every address a name has, as `dns.lookup(host, { all: true })` gives them (family 0 = either). */
export type HostLookup = (host: string, family: 0 | 4 | 6) => Promise<{ address: string; family: number }[]>;

export interface ProbeContext {
  /** Lifts the target guard (tests, private deployments). */
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Replaces the system resolver (getaddrinfo); tests use it to stand in a resolver that never answers. */
  lookup?: HostLookup;
  /** Root server addresses a dns `trace` starts from (default: VANTAGE_DNS_ROOTS, else IANA's roots). */
  dnsRoots?: readonly string[];
  /**
   * Hears a progressive probe's result so far (today mtr's, after each round: the hops with their running
   * statistics, in the final result's shape), for live streams. At most one call per round; never after
   * the probe has returned. Probes that are not progressive ignore it.
   */
  onProgress?: (detail: Record<string, unknown>) => void;
}

/** The one shape every probe file exports. */
export interface Probe<T extends ProbeType> {
  type: T;
  paramsSchema: z.core.$ZodType;
  run(params: Extract<ProbeJobSpec, { type: T }>["params"], ctx: ProbeContext): Promise<ProbeOutcome<T>>;
}
