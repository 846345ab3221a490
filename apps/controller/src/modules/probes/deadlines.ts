import { PMTU_MAX_PROBES, type ProbeJobSpec, TRACE_BUDGET_FACTOR } from "@vantage/probes";

/**
 * Added to every probe's own budget: the controller waits `probe budget + DISPATCH_GRACE_MS` for a node.
 * Of it, NETWORK_ALLOWANCE_MS is kept out of the job's `budget_ms` for the job's and the reply's trips;
 * the agent spends the rest (600 ms) past the probe's budget: it aborts the probe 300 ms after it, gives it
 * up to 250 ms to answer with what it has (partial results), and keeps 50 ms to send the reply.
 */
export const DISPATCH_GRACE_MS = 1000;

/** The network round trip (job out, reply back) the controller keeps out of a job's `budget_ms`. */
export const NETWORK_ALLOWANCE_MS = 400;

/** A traceroute may not hold a request open longer than this, whatever its hop count. */
export const TRACEROUTE_BUDGET_CAP_MS = 60_000;

/** An mtr run may not hold a request open longer than this (100 rounds at 1 s fit). */
export const MTR_BUDGET_CAP_MS = 120_000;

/**
 * How long the probe itself may take on a node, from its parameters:
 * - http: `timeout_ms` (the whole exchange, redirects included);
 * - ping: `count × interval_ms + timeout_ms` (the last echo still gets its full wait), plus
 *   `PMTU_MAX_PROBES × timeout_ms` with `pmtu` (each size of the search waits its timeout at worst);
 * - dns: `2 × timeout_ms` (a truncated UDP answer is retried over TCP); with `trace`,
 *   `TRACE_BUDGET_FACTOR × timeout_ms` (the whole walk from the roots);
 * - tcp: `timeout_ms`;
 * - traceroute: `max_hops × queries_per_hop × timeout_ms`, capped at 60 s (a real route answers long before;
 *   at the job's budget the agent aborts the probe and reports the hops it has, within the grace);
 * - mtr: `(rounds − 1) × interval_ms + timeout_ms`, capped at 120 s (at the cap the rounds done so far).
 */
export function probeBudgetMs(spec: ProbeJobSpec): number {
  switch (spec.type) {
    case "http":
      return spec.params.timeout_ms;
    case "ping":
      return (
        spec.params.count * spec.params.interval_ms +
        spec.params.timeout_ms * (spec.params.pmtu ? 1 + PMTU_MAX_PROBES : 1)
      );
    case "dns":
      return (spec.params.trace ? TRACE_BUDGET_FACTOR : 2) * spec.params.timeout_ms;
    case "tcp":
      return spec.params.timeout_ms;
    case "traceroute":
      return Math.min(
        spec.params.max_hops * spec.params.queries_per_hop * spec.params.timeout_ms,
        TRACEROUTE_BUDGET_CAP_MS,
      );
    case "mtr":
      return Math.min(
        (spec.params.rounds - 1) * spec.params.interval_ms +
          Math.min(spec.params.timeout_ms, spec.params.interval_ms),
        MTR_BUDGET_CAP_MS,
      );
  }
}

/** The per-node request timeout: the probe's budget plus the dispatch grace. */
export function dispatchTimeoutMs(spec: ProbeJobSpec): number {
  return probeBudgetMs(spec) + DISPATCH_GRACE_MS;
}

/**
 * The job's `budget_ms` for a request the controller waits `timeoutMs` for. Relative, counted by the agent
 * from receipt, so the two clocks need not agree; the allowance covers the round trip.
 */
export function jobBudgetMs(timeoutMs: number): number {
  return Math.max(1, timeoutMs - NETWORK_ALLOWANCE_MS);
}
