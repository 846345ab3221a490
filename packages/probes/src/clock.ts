/** Monotonic nanosecond clock: wall-clock time can jump, and Date has only millisecond resolution. */
export const now = (): bigint => process.hrtime.bigint();

/** Milliseconds between two `now()` readings, rounded to microseconds (iputils prints 3 decimals). */
export function elapsedMs(start: bigint, end: bigint = now()): number {
  return roundMs(Number(end - start) / 1e6);
}

export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** A timer that fires later than this was held up: the process was stalled, not the network slow. */
const HELD_MS = 2;
/** How long a held-up wait goes on before its verdict: the loop reads what queued up meanwhile. */
const READ_GRACE_MS = 10;

/**
 * A timer for the end of a wait for a reply, which gives up (`lost`) only once the process has had a
 * chance to read what came in time: after a stall (a busy agent, a long GC pause) the event loop runs
 * expired timers before it reads its sockets, and raw-socket reads one packet per turn, so a reply already
 * queued would count as lost: loss the network never had. A timer that fired late waits `READ_GRACE_MS`
 * more; an answer read meanwhile settles the wait first, so `lost` must ignore a wait already settled. The
 * answer's time still includes the stall (user-space timestamps).
 */
export function replyDeadline(lost: () => void, ms: number): NodeJS.Timeout {
  const start = now();
  return setTimeout(() => {
    if (elapsedMs(start) - ms <= HELD_MS) lost();
    else setTimeout(lost, READ_GRACE_MS);
  }, ms);
}
