/**
 * Runs `run` with the process stalled as a busy agent stalls: just after each timer of exactly `ms` is set
 * (a probe's wait for its reply), the event loop is held `holdMs` by synchronous work. Replies that arrive
 * meanwhile wait in their sockets while the timer expires. Timers of any other length are left alone.
 */
export async function withLoopHeld<T>(ms: number, holdMs: number, run: () => Promise<T>): Promise<T> {
  const real = globalThis.setTimeout;
  const held = ((fn: (...a: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    const timer = real(fn, delay, ...args);
    if (delay === ms)
      queueMicrotask(() => {
        const end = performance.now() + holdMs;
        while (performance.now() < end) {
          // the stall itself
        }
      });
    return timer;
  }) as typeof setTimeout;
  globalThis.setTimeout = held;
  try {
    return await run();
  } finally {
    globalThis.setTimeout = real;
  }
}
