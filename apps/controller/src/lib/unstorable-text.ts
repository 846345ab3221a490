/**
 * Text PostgreSQL cannot hold: `text` and `jsonb` refuse U+0000, and `jsonb` refuses a UTF-16 surrogate
 * without its other half. Requests carrying such text are refused (400) before anything is stored; text
 * from the outside world that a probe reports is stored with U+FFFD in their place.
 */

const REPLACEMENT = "\ufffd";

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** True when `s` holds U+0000 or an unpaired surrogate. */
export function hasUnstorableChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || isLow(c)) return true;
    if (isHigh(c)) {
      if (!isLow(s.charCodeAt(i + 1))) return true;
      i++;
    }
  }
  return false;
}

/** `s` with every U+0000 and unpaired surrogate replaced by U+FFFD; `s` itself when there is none. */
export function replaceUnstorableChars(s: string): string {
  if (!hasUnstorableChars(s)) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isHigh(c) && isLow(s.charCodeAt(i + 1))) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else out += c === 0 || isHigh(c) || isLow(c) ? REPLACEMENT : s[i]!;
  }
  return out;
}

/**
 * The path (`a.b.0`) of the first string or key in a parsed JSON value that holds unstorable text, or
 * undefined. Keys count too: they may become column values or jsonb keys.
 *
 * Request bodies are hostile input, so both walks keep their own stack (no depth overflows the call stack)
 * and touch each element once: the cost is linear in the size of the value. The first, in any order,
 * allocates only for containers; the second, in document order, builds the path, and runs only when the
 * first has found something.
 */
export function findUnstorableText(value: unknown): string | undefined {
  return holdsUnstorableText(value) ? firstUnstorablePath(value) : undefined;
}

function holdsUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === "string") {
      if (hasUnstorableChars(v)) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item === "string") {
          if (hasUnstorableChars(item)) return true;
        } else if (item !== null && typeof item === "object") pending.push(item);
      }
    } else if (v !== null && typeof v === "object") {
      const record = v as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (hasUnstorableChars(key)) return true;
        const item = record[key];
        if (typeof item === "string") {
          if (hasUnstorableChars(item)) return true;
        } else if (item !== null && typeof item === "object") pending.push(item);
      }
    }
  }
  return false;
}

/** One array or object on the ordered walk: its keys (objects) and the index of the next element. */
interface Frame {
  container: unknown[] | Record<string, unknown>;
  keys: string[] | undefined;
  next: number;
}

function frameOf(container: object): Frame {
  return Array.isArray(container)
    ? { container, keys: undefined, next: 0 }
    : { container: container as Record<string, unknown>, keys: Object.keys(container), next: 0 };
}

/** The path of the element each frame is at. */
function pathOf(stack: readonly Frame[]): string {
  return stack.map((f) => (f.keys ? f.keys[f.next - 1]! : String(f.next - 1))).join(".");
}

function firstUnstorablePath(value: unknown): string | undefined {
  if (typeof value === "string") return hasUnstorableChars(value) ? "" : undefined;
  if (value === null || typeof value !== "object") return undefined;
  const stack: Frame[] = [frameOf(value)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const size = top.keys ? top.keys.length : (top.container as unknown[]).length;
    if (top.next >= size) {
      stack.pop();
      continue;
    }
    const i = top.next++;
    let child: unknown;
    if (top.keys) {
      const key = top.keys[i]!;
      if (hasUnstorableChars(key)) return pathOf(stack);
      child = (top.container as Record<string, unknown>)[key];
    } else {
      child = (top.container as unknown[])[i];
    }
    if (typeof child === "string") {
      if (hasUnstorableChars(child)) return pathOf(stack);
    } else if (child !== null && typeof child === "object") {
      stack.push(frameOf(child));
    }
  }
  return undefined;
}
