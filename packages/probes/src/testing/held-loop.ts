/** A stall of `holdMs` just after the first `times` timers of exactly `ms` are set. */
export interface Stall {
  ms: number;
  holdMs: number;
  times?: number;
}

/**
 * Runs `run` with the process stalled as a busy agent stalls: just after each timer of exactly `ms` is set
 * (a probe's wait for its reply), the event loop is held `holdMs` by synchronous work. Replies that arrive
 * meanwhile wait in their sockets while the timer expires. `then` stalls it again the same way after
 * timers of another length (a wait's grace after a stall: a process that loses its core again, as on a
 * machine with more runnable processes than cores). Timers of any other length are left alone.
 */
export async function withLoopHeld<T>(
  ms: number,
  holdMs: number,
  run: () => Promise<T>,
  then?: Stall,
): Promise<T> {
  const real = globalThis.setTimeout;
  const stalls: Stall[] = [{ ms, holdMs }, ...(then ? [then] : [])];
  const left = stalls.map((s) => s.times ?? Number.POSITIVE_INFINITY);
  const held = ((fn: (...a: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    const timer = real(fn, delay, ...args);
    const i = stalls.findIndex((s) => s.ms === delay);
    const stall = stalls[i];
    if (stall && (left[i] as number) > 0) {
      left[i] = (left[i] as number) - 1;
      queueMicrotask(() => {
        const end = performance.now() + stall.holdMs;
        while (performance.now() < end) {
          // the stall itself
        }
      });
    }
    return timer;
  }) as typeof setTimeout;
  globalThis.setTimeout = held;
  try {
    return await run();
  } finally {
    globalThis.setTimeout = real;
  }
}
