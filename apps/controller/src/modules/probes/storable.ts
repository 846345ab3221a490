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

/** An array or object being cleaned: what it holds, how far the walk got, and its copy once one is needed. */
interface Frame {
  value: unknown[] | Record<string, unknown>;
  /** The object's own keys (undefined for an array). */
  keys: string[] | undefined;
  length: number;
  next: number;
  out: unknown[] | Record<string, unknown> | undefined;
}

const isContainer = (v: unknown): v is object => v !== null && typeof v === "object" && !(v instanceof Date);

function frameOf(v: object): Frame {
  if (Array.isArray(v)) return { value: v, keys: undefined, length: v.length, next: 0, out: undefined };
  const keys = Object.keys(v);
  return { value: v as Record<string, unknown>, keys, length: keys.length, next: 0, out: undefined };
}

/**
 * Strings and keys cleaned, arrays and objects copied only where something inside changed (a renamed key
 * moves to the end of its object). The walk keeps its own stack, so no depth overflows the call stack; each
 * element is visited once.
 */
function clean(root: unknown): unknown {
  if (typeof root === "string") return replaceUnstorableChars(root);
  if (!isContainer(root)) return root;
  const stack: Frame[] = [frameOf(root)];
  for (;;) {
    const f = stack[stack.length - 1]!;
    let cleaned: unknown;
    if (f.next < f.length) {
      const item = f.keys
        ? (f.value as Record<string, unknown>)[f.keys[f.next]!]
        : (f.value as unknown[])[f.next];
      if (isContainer(item)) {
        // Its cleaned value is settled into `f` once its own frame is done.
        stack.push(frameOf(item));
        continue;
      }
      cleaned = typeof item === "string" ? replaceUnstorableChars(item) : item;
      settle(f, cleaned);
      continue;
    }
    stack.pop();
    cleaned = f.out ?? f.value;
    const parent = stack[stack.length - 1];
    if (!parent) return cleaned;
    settle(parent, cleaned);
  }
}

/** Records the cleaned value of `f`'s current element (copying `f` on the first change) and moves on. */
function settle(f: Frame, cleaned: unknown): void {
  const i = f.next++;
  if (!f.keys) {
    const v = f.value as unknown[];
    if (cleaned !== v[i]) {
      f.out ??= v.slice();
      (f.out as unknown[])[i] = cleaned;
    }
    return;
  }
  const v = f.value as Record<string, unknown>;
  const k = f.keys[i]!;
  const ck = replaceUnstorableChars(k);
  if (cleaned !== v[k] || ck !== k) {
    f.out ??= { ...v };
    const out = f.out as Record<string, unknown>;
    if (ck !== k) delete out[k];
    out[ck] = cleaned;
  }
}
