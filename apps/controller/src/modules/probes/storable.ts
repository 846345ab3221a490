/**
 * PostgreSQL text and jsonb cannot hold U+0000, and jsonb refuses unpaired UTF-16 surrogates. Probe
 * results carry text from the outside world (an HTTP body excerpt of a binary file, a header, a TXT
 * record as a node decoded it), so each such character becomes U+FFFD before the result is answered or
 * stored: the answer and every later read of the task say the same, and no result is lost to an insert
 * PostgreSQL refuses.
 */
export function storable<T>(value: T): T {
  return clean(value) as T;
}

const REPLACEMENT = "\ufffd";

function clean(v: unknown): unknown {
  if (typeof v === "string") return cleanString(v);
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
      const ck = cleanString(k);
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

/** The string itself when it has nothing to replace (the common case: no copy). */
export function cleanString(s: string): string {
  let out: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let bad = c === 0 || (c >= 0xdc00 && c <= 0xdfff);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        if (out !== undefined) out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
      bad = true;
    }
    if (bad && out === undefined) out = s.slice(0, i);
    if (out !== undefined) out += bad ? REPLACEMENT : s[i]!;
  }
  return out ?? s;
}
