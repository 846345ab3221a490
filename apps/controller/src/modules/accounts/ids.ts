import { randomHex } from "../../lib/random-hex.js";

/** `usr_…`, `key_…`, `pat_…`, `ses_…`: time-sortable (base-36 ms), then 80 random bits. */
export function newId(prefix: string, now = Date.now()): string {
  return `${prefix}_${now.toString(36).padStart(9, "0")}${randomHex(10)}`;
}
