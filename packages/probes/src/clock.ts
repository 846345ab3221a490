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
export const READ_GRACE_MS = 10;
/** Graces in a row a wait gives a process that keeps stalling, before its verdict all the same. */
const MAX_GRACES = 20;
/** Loop turns just before a held-up wait's verdict: raw-socket reads one packet a turn. */
const READ_TURNS = 4;

/**
 * A timer for the end of a wait for a reply, which gives up (`lost`) only once the process has had a
 * chance to read what came in time: after a stall (a busy agent, a long GC pause) the event loop runs
 * expired timers before it reads its sockets, and raw-socket reads one packet per turn, so a reply already
 * queued would count as lost: loss the network never had. A timer that fired late waits `READ_GRACE_MS`
 * more, again while each grace itself fires late (a process that keeps losing its core: up to
 * `MAX_GRACES`), then gives the loop `READ_TURNS` reads of its sockets before the verdict. An answer read
 * meanwhile settles the wait first, so `lost` must ignore a wait already settled. The answer's time still
 * includes the stall (user-space timestamps).
 */
export function replyDeadline(lost: () => void, ms: number): NodeJS.Timeout {
  const start = now();
  return setTimeout(() => {
    if (elapsedMs(start) - ms <= HELD_MS) lost();
    else readGrace(lost, 1);
  }, ms);
}

function readGrace(lost: () => void, graces: number): void {
  const start = now();
  setTimeout(() => {
    if (elapsedMs(start) - READ_GRACE_MS > HELD_MS && graces < MAX_GRACES) readGrace(lost, graces + 1);
    else afterTurns(lost, READ_TURNS);
  }, READ_GRACE_MS);
}

/** `then` after `turns` more turns of the loop, each of which reads the sockets (setImmediate: after I/O). */
function afterTurns(then: () => void, turns: number): void {
  setImmediate(() => (turns > 1 ? afterTurns(then, turns - 1) : then()));
}
