import type { ProbeJobSpec } from "@vantage/probes";

/** Added to every probe's own budget: transport round trip, agent scheduling, reply encoding. */
export const DISPATCH_GRACE_MS = 1000;

/** A traceroute may not hold a request open longer than this, whatever its hop count. */
export const TRACEROUTE_BUDGET_CAP_MS = 60_000;

/**
 * How long the probe itself may take on a node, from its parameters:
 * - http: `timeout_ms` (the whole exchange, redirects included);
 * - ping: `count × interval_ms + timeout_ms` (the last echo still gets its full wait);
 * - dns: `2 × timeout_ms` (a truncated UDP answer is retried over TCP);
 * - tcp: `timeout_ms`;
 * - traceroute: `max_hops × queries_per_hop × timeout_ms`, capped at 60 s (a real route answers long before;
 *   an agent stops at the job deadline and reports the hops it has).
 */
export function probeBudgetMs(spec: ProbeJobSpec): number {
  switch (spec.type) {
    case "http":
      return spec.params.timeout_ms;
    case "ping":
      return spec.params.count * spec.params.interval_ms + spec.params.timeout_ms;
    case "dns":
      return 2 * spec.params.timeout_ms;
    case "tcp":
      return spec.params.timeout_ms;
    case "traceroute":
      return Math.min(
        spec.params.max_hops * spec.params.queries_per_hop * spec.params.timeout_ms,
        TRACEROUTE_BUDGET_CAP_MS,
      );
  }
}

/** The per-node request timeout: the probe's budget plus the dispatch grace. */
export function dispatchTimeoutMs(spec: ProbeJobSpec): number {
  return probeBudgetMs(spec) + DISPATCH_GRACE_MS;
}
