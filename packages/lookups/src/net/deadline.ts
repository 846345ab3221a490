import type { LookupContext } from "../types.js";

/** Also a resolver query's Budget (net/resolver.ts): `signal` and `endsAt`. */
export interface Deadline {
  ms: number;
  /** Aborts when the time is up or the caller aborts. */
  signal: AbortSignal;
  /** When the time is up, performance.now() time. */
  endsAt: number;
  /** The time is up (not the caller gone). */
  expired: () => boolean;
  remaining: () => number;
  /**
   * A signal for one step that may take at most `share` of the time left: the step fails on its own
   * (a timeout of its own) while the lookup still has time to try something else.
   */
  slice: (share: number) => { signal: AbortSignal; ms: number };
  stop: () => void;
}

/**
 * The whole lookup's time: `ctx.timeoutMs`, else the lookup's own default. One timer for every step, so the
 * steps share what is left rather than each starting afresh; the caller going away aborts it too.
 */
export function startDeadline(ctx: Pick<LookupContext, "timeoutMs" | "signal">, defaultMs: number): Deadline {
  const ms = ctx.timeoutMs ?? defaultMs;
  const endsAt = performance.now() + ms;
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(), ms);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timer.signal]) : timer.signal;
  const remaining = () => Math.max(0, endsAt - performance.now());
  return {
    ms,
    signal,
    endsAt,
    expired: () => timer.signal.aborted,
    remaining,
    slice: (share) => {
      const sliceMs = Math.max(1, Math.floor(remaining() * share));
      return { signal: AbortSignal.any([signal, AbortSignal.timeout(sliceMs)]), ms: sliceMs };
    },
    stop: () => clearTimeout(handle),
  };
}
