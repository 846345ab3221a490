// Breaks module-public-face-only-from-outside (../modules/x/secret.js); testing/ may import app.ts.
import type { AppDeps } from "../app.js";
import type { Secret } from "../modules/x/secret.js";

export interface Harness {
  deps: AppDeps;
  secret: Secret;
}
