import { replaceUnstorableChars } from "../../lib/unstorable-text.js";

/**
 * Probe results carry text from the outside world (an HTTP body excerpt of a binary file, a header, a TXT
 * record as a node decoded it). PostgreSQL cannot store U+0000 or unpaired surrogates, so each becomes
 * U+FFFD before the result is answered or stored: the answer and every later read of the task say the
 * same, and no result is lost to an insert PostgreSQL refuses. Unchanged values are returned as they are.
 */
export function storable<T>(value: T): T {
  return clean(value) as T;
}

function clean(v: unknown): unknown {
  if (typeof v === "string") return replaceUnstorableChars(v);
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((item, i) => {
      const c = clean(item);
      if (c !== item) {
        out ??= v.slice();
        out[i] = c;
      }
    });
    return out ?? v;
  }
  if (v !== null && typeof v === "object" && !(v instanceof Date)) {
    let out: Record<string, unknown> | undefined;
    for (const [k, item] of Object.entries(v)) {
      const ck = replaceUnstorableChars(k);
      const c = clean(item);
      if (c !== item || ck !== k) {
        out ??= { ...(v as Record<string, unknown>) };
        if (ck !== k) delete out[k];
        out[ck] = c;
      }
    }
    return out ?? v;
  }
  return v;
}
