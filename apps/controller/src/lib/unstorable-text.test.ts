import { describe, expect, it } from "vitest";
import { findUnstorableText, hasUnstorableChars, replaceUnstorableChars } from "./unstorable-text.js";

/** `[[[…value…]]]`, `depth` arrays deep, built without recursion. */
function nested(depth: number, value: unknown): unknown {
  let v = value;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe("unstorable text", () => {
  it("finds NUL and unpaired surrogates, keeps pairs", () => {
    expect(hasUnstorableChars("a\u0000b")).toBe(true);
    expect(hasUnstorableChars("\ud800")).toBe(true);
    expect(hasUnstorableChars("\udc00x")).toBe(true);
    expect(hasUnstorableChars("😀")).toBe(false);
    expect(replaceUnstorableChars("a\u0000\ud800😀")).toBe("a\ufffd\ufffd😀");
  });

  it("names the path of the first bad string or key, depth first in document order", () => {
    expect(findUnstorableText("ok")).toBeUndefined();
    expect(findUnstorableText("\u0000")).toBe("");
    expect(findUnstorableText(42)).toBeUndefined();
    expect(findUnstorableText(null)).toBeUndefined();
    expect(findUnstorableText({ a: { b: ["x", "y\u0000"] } })).toBe("a.b.1");
    expect(findUnstorableText({ a: [{}, [], { "k\ud800": 1 }] })).toBe("a.2.k\ud800");
    expect(findUnstorableText({ a: ["\u0000"], b: "\u0000" })).toBe("a.0");
    expect(findUnstorableText({ a: [[], {}, [1, 2, { c: null }]], b: "fine" })).toBeUndefined();
    // A key named like an Object.prototype member is an ordinary own key of parsed JSON.
    expect(findUnstorableText(JSON.parse('{"__proto__":{"x":"\\u0000"}}'))).toBe("__proto__.x");
  });

  it("walks 100,000 levels without overflowing the stack", () => {
    expect(findUnstorableText(nested(100_000, "fine"))).toBeUndefined();
    expect(findUnstorableText(nested(100_000, "\u0000"))).toBe(Array(100_000).fill("0").join("."));
  });

  it("walks a body 3,000 deep holding 515,000 elements", () => {
    const wide: unknown[] = Array.from({ length: 515_000 }, (_, i) => (i % 2 ? 0 : "s"));
    expect(findUnstorableText(nested(3_000, wide))).toBeUndefined();
    wide[514_999] = "\ud800";
    expect(findUnstorableText(nested(3_000, wide))).toBe(`${Array(3_000).fill("0").join(".")}.514999`);
  });
});
