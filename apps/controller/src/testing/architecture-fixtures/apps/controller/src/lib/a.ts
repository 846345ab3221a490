// Breaks no-cycles with b.ts: the cycle is made of type-only imports.
import type { B } from "./b.js";

export interface A {
  b?: B;
}
