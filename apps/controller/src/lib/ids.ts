import { randomHex } from "./random-hex.js";

/** `usr_…`, `key_…`, `mon_…`: a prefix, then time-sortable (base-36 ms), then 80 random bits. */
export function newId(prefix: string, now = Date.now()): string {
  return `${prefix}_${now.toString(36).padStart(9, "0")}${randomHex(10)}`;
}
