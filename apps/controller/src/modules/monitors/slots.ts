import { createHash } from "node:crypto";

/**
 * Run slots. A monitor runs at `phase + k·interval` (epoch ms), its phase fixed by its id: monitors with the
 * same interval are spread evenly over it instead of all firing at :00, and a monitor keeps its rhythm
 * across restarts, pauses and interval changes of others.
 */
export function phaseMs(id: string, intervalS: number): number {
  const h = createHash("sha1").update(id).digest();
  return h.readUInt32BE(0) % (intervalS * 1000);
}

/** The first slot at or after `now`. */
export function slotAtOrAfter(id: string, intervalS: number, now: number): number {
  const interval = intervalS * 1000;
  const phase = phaseMs(id, intervalS);
  const k = Math.ceil((now - phase) / interval);
  return phase + k * interval;
}

/**
 * The slot after `slot` that is still ahead of `now`: the next one, or, after downtime, the first one not
 * yet past. Missed slots are skipped, never replayed in a burst.
 */
export function nextSlot(slot: number, intervalS: number, now: number): number {
  const interval = intervalS * 1000;
  const next = slot + interval;
  if (next > now) return next;
  return slot + Math.ceil((now - slot) / interval + 1e-9) * interval;
}
