/** Monotonic nanosecond clock: wall-clock time can jump, and Date has only millisecond resolution. */
export const now = (): bigint => process.hrtime.bigint();

/** Milliseconds between two `now()` readings, rounded to microseconds (iputils prints 3 decimals). */
export function elapsedMs(start: bigint, end: bigint = now()): number {
  return roundMs(Number(end - start) / 1e6);
}

export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
