import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replaceUnstorableChars } from "../../lib/unstorable-text.js";
import { storable } from "./storable.js";

const NUL = "\u0000";
const LONE = "\ud800";
const FFFD = "\ufffd";

/** `depth` objects nested under `key`, the innermost holding `leaf`. Built bottom-up, no recursion. */
function nested(depth: number, key: string, leaf: unknown): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { [key]: v, n: i };
  return v;
}

/** Walks `depth` levels down `key` without recursion (vitest's deep equality would overflow). */
function bottom(v: unknown, depth: number, key: string): unknown {
  let cur = v;
  for (let i = 0; i < depth; i++) cur = (cur as Record<string, unknown>)[key];
  return cur;
}

/** The recursive walk `storable` used before it kept its own stack: the output must not change. */
function recursiveClean(v: unknown): unknown {
  if (typeof v === "string") return replaceUnstorableChars(v);
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((item, i) => {
      const c = recursiveClean(item);
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
      const c = recursiveClean(item);
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

describe("storable", () => {
  it("gives what the recursive walk gave, key order and sharing included", () => {
    // Short strings over an alphabet rich in NUL and surrogate halves, so a good share need replacing.
    const text = fc.string({
      unit: fc.constantFrom("a", "b", NUL, LONE, "\udc00", "\ud83d\ude00"),
      maxLength: 4,
    });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        text,
        fc.integer(),
        fc.constant(null),
        fc.boolean(),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(text, tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const want = recursiveClean(v);
        const got = storable(v);
        expect(got).toStrictEqual(want);
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        // Unchanged values come back as themselves in both.
        expect(got === v).toBe(want === v);
      }),
      { numRuns: 2000 },
    );
  });

  it("replaces NUL and unpaired surrogates in strings and keys, copying only what changed", () => {
    const untouched = { a: [1, "ok", { b: true }], d: new Date(0) };
    const input = {
      keep: untouched,
      text: `x${NUL}y`,
      list: ["fine", `bad${LONE}`, null, 3, [`${NUL}`]],
      [`k${NUL}`]: "v",
      after: 1,
    };
    const out = storable(input);
    expect(out).toEqual({
      keep: untouched,
      text: `x${FFFD}y`,
      list: ["fine", `bad${FFFD}`, null, 3, [FFFD]],
      after: 1,
      [`k${FFFD}`]: "v",
    });
    // A renamed key moves to the end, as a delete and an insert do.
    expect(Object.keys(out)).toEqual(["keep", "text", "list", "after", `k${FFFD}`]);
    expect(out).not.toBe(input);
    expect(out.keep).toBe(untouched);
    expect(out.list).not.toBe(input.list);
    // The input is not modified.
    expect(input.text).toBe(`x${NUL}y`);
    expect(input.list[1]).toBe(`bad${LONE}`);
  });

  it("returns clean values as they are", () => {
    const v = { a: [{ b: "c" }, 1, null], e: new Date(1) };
    expect(storable(v)).toBe(v);
    expect(storable("plain")).toBe("plain");
    expect(storable(42)).toBe(42);
    expect(storable(null)).toBe(null);
    expect(storable(`${NUL}`)).toBe(FFFD);
  });

  it("handles a 100,000-deep detail without overflowing the stack", () => {
    const depth = 100_000;
    const dirty = nested(depth, "detail", { text: `deep${NUL}` });
    const out = storable(dirty);
    // Identity compared by hand: vitest's matchers walk their operands (recursively) to describe them.
    expect(out === dirty).toBe(false);
    expect(bottom(out, depth, "detail")).toEqual({ text: `deep${FFFD}` });
    expect((bottom(out, depth - 1, "detail") as { n: number }).n).toBe(0);
    // Every level on the path was copied, the input left as it was.
    expect(bottom(dirty, depth, "detail")).toEqual({ text: `deep${NUL}` });

    const clean = nested(depth, "detail", { text: "fine" });
    expect(storable(clean) === clean).toBe(true);

    let arrays: unknown = [`a${LONE}`];
    for (let i = 0; i < depth; i++) arrays = [arrays, i];
    let cur = storable(arrays) as unknown[];
    for (let i = 0; i < depth; i++) cur = cur[0] as unknown[];
    expect(cur).toEqual([`a${FFFD}`]);
  });
});
