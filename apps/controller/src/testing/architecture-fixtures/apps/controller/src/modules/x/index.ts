// Allowed: a module's own files import each other freely.
import type { Secret } from "./secret.js";

/** Fixture: module x's public face. */
export interface Widget {
  id: string;
  secret: Secret;
}
