// Breaks deps-is-a-leaf: deps.ts imports a module.
import type { Widget } from "./modules/x/index.js";

export interface Deps {
  widget: Widget;
}
