// Breaks packages-never-import-apps: a package imports an app's file.
import type { AppDeps } from "../../../apps/controller/src/app.js";

export type WidgetDeps = AppDeps;
