// Breaks no-cycles with a.ts: the cycle is made of type-only imports.
import type { A } from "./a.js";

export interface B {
  a?: A;
}
