import { describe, expect, it } from "vitest";
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES } from "./json-shape.js";

const deep = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n);
/** The number of values in a JSON text, counted the slow way. */
function valuesIn(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + valuesIn(x), 0);
  if (v !== null && typeof v === "object")
    return 1 + Object.values(v).reduce((n: number, x) => n + valuesIn(x), 0);
  return 1;
}

describe("JSON shape pre-scan", () => {
  it("counts nesting of arrays and objects, up to the limit and no further", () => {
    expect(jsonShapeProblem(deep(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonShapeProblem(deep(MAX_JSON_DEPTH + 1))).toBe("too_deep");
    const objects = `${'{"a":'.repeat(3)}1${"}".repeat(3)}`;
    expect(jsonShapeProblem(objects, 3)).toBeUndefined();
    expect(jsonShapeProblem(objects, 2)).toBe("too_deep");
    // Siblings do not add up: depth is nesting, not count.
    expect(jsonShapeProblem(`[${Array(1000).fill("[[]]").join(",")}]`, 3)).toBeUndefined();
  });

  it("counts values exactly for well-formed JSON, whitespace and empty containers included", () => {
    for (const text of [
      "1",
      "[]",
      "{}",
      "[ ]",
      "[1]",
      '[1, 2, [ ], { }, {"a": [1, {"b": null}]}]',
      ' { "a" : [ [ ] , [ 1 ] ] , "b" : { } } ',
      JSON.stringify({ s: "a,b,[c]", t: ['\\",', { u: "}" }] }),
    ]) {
      const n = valuesIn(JSON.parse(text));
      expect(jsonShapeProblem(text, 64, n), text).toBeUndefined();
      if (n > 1) expect(jsonShapeProblem(text, 64, n - 1), text).toBe("too_many_values");
    }
  });

  it(`refuses more than ${MAX_JSON_VALUES} values however they are spread`, () => {
    expect(
      jsonShapeProblem(
        `[${Array(MAX_JSON_VALUES - 1)
          .fill(0)
          .join(",")}]`,
      ),
    ).toBeUndefined();
    expect(jsonShapeProblem(`[${Array(MAX_JSON_VALUES).fill(0).join(",")}]`)).toBe("too_many_values");
    expect(jsonShapeProblem(`[${Array(MAX_JSON_VALUES).fill("{}").join(",")}]`)).toBe("too_many_values");
    const keys = `{${Array.from({ length: MAX_JSON_VALUES }, (_, i) => `"k${i}":1`).join(",")}}`;
    expect(jsonShapeProblem(keys)).toBe("too_many_values");
    expect(jsonShapeProblem(`[${Array(MAX_JSON_VALUES).fill("[1]").join(",")}]`)).toBe("too_many_values");
  });

  it("ignores brackets and commas inside strings, escaped quotes included", () => {
    expect(jsonShapeProblem(JSON.stringify(["[".repeat(500)]), 1)).toBeUndefined();
    expect(jsonShapeProblem(JSON.stringify([",".repeat(500)]), 64, 2)).toBeUndefined();
    expect(jsonShapeProblem(JSON.stringify({ k: `\\"${"{".repeat(500)}\\` }), 1)).toBeUndefined();
    expect(jsonShapeProblem(JSON.stringify({ [`"${"[".repeat(99)}`]: ["\\"] }), 2)).toBeUndefined();
    expect(jsonShapeProblem(`["\\"", ${deep(3)}]`, 3)).toBe("too_deep");
  });

  it("answers for 100,000 levels, closed or not", () => {
    expect(jsonShapeProblem(deep(100_000))).toBe("too_deep");
    expect(jsonShapeProblem("[".repeat(100_000))).toBe("too_deep");
    expect(jsonShapeProblem(deep(100_000, "{", "}"))).toBe("too_deep");
  });
});
