/** How deep arrays and objects may nest in a request body. No route's schema comes near it. */
export const MAX_JSON_DEPTH = 64;

/**
 * How many values a request body may hold: array elements and object members, nested ones included, and
 * the body itself. No route takes more than a few hundred; parsing a megabyte of `[{},{},…]` (350,000
 * objects) costs V8 about 40 ms, and every later walk and validation pays per value too.
 */
export const MAX_JSON_VALUES = 10_000;

export type JsonShapeProblem = "too_deep" | "too_many_values";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * What makes the JSON text `raw` too costly to parse, if anything: arrays and objects nested deeper than
 * `maxDepth` (`[]` is depth 1), or more than `maxValues` values. Brackets and commas count outside strings
 * only. One pass over the text, no allocation, run before `JSON.parse`: a body of any depth or width costs
 * the same as any other of its size, and nothing too deep or too wide is ever built, walked or validated.
 * Malformed text may be counted loosely; `JSON.parse` refuses it afterwards anyway.
 */
export function jsonShapeProblem(
  raw: string,
  maxDepth = MAX_JSON_DEPTH,
  maxValues = MAX_JSON_VALUES,
): JsonShapeProblem | undefined {
  // Fewer characters than either limit cannot exceed it.
  if (raw.length <= maxDepth && raw.length <= maxValues) return undefined;
  let depth = 0;
  // The body itself, one more per comma, one more per container that is not empty.
  let values = 1;
  let justOpened = false;
  const n = raw.length;
  for (let i = 0; i < n; i++) {
    const c = raw.charCodeAt(i);
    if (c === SPACE || c === LF || c === CR || c === TAB) continue;
    if (justOpened) {
      justOpened = false;
      if (c !== CLOSE_ARRAY && c !== CLOSE_OBJECT && ++values > maxValues) return "too_many_values";
    }
    if (c === QUOTE) {
      // Skip the string, escapes included (`\"` does not end it).
      for (i++; i < n; i++) {
        const s = raw.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === COMMA) {
      if (++values > maxValues) return "too_many_values";
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return "too_deep";
      justOpened = true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}
