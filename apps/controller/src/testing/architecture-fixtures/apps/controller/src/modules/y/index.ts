// Breaks nothing-imports-app (../../app.js) and module-public-face-only (../x/secret.js);
// ../x/index.js is module x's public face and allowed.
import type { AppDeps } from "../../app.js";
import type { Widget } from "../x/index.js";
import type { Secret } from "../x/secret.js";

export interface Gadget {
  deps: AppDeps;
  widget: Widget;
  secret: Secret;
}
