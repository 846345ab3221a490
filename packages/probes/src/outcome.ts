import { toProbeFailure } from "./probe-failure.js";
import type { ProbeResultByType } from "./probe-results.js";
import type { ProbeOutcome, ProbeType } from "./types.js";

export interface Measured<T extends ProbeType> {
  detail: ProbeResultByType[T];
  latency_ms: number | null;
}

/**
 * Runs a probe body and turns whatever happens into an outcome: probes throw ProbeFailure (with the partial
 * detail they have) and this is the one place that converts, so `run` itself never rejects.
 */
export async function settle<T extends ProbeType>(
  body: () => Promise<Measured<T>>,
): Promise<ProbeOutcome<T>> {
  try {
    const { detail, latency_ms } = await body();
    return { success: true, latency_ms, error: null, detail };
  } catch (error) {
    const failure = toProbeFailure<ProbeResultByType[T]>(error);
    return {
      success: false,
      latency_ms: null,
      error: { code: failure.code, message: failure.message },
      detail: failure.detail,
    };
  }
}

/** Calls `fn` once when `signal` aborts (at once if it already has); returns a remover for the listener. */
export function onAbort(signal: AbortSignal | undefined, fn: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    queueMicrotask(fn);
    return () => {};
  }
  signal.addEventListener("abort", fn, { once: true });
  return () => signal.removeEventListener("abort", fn);
}
