// The one esbuild of the repository, installed by the dashboard (apps/web). The CLI, agent and controller
// builds load it from here, so none of them adds a build dependency of its own.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

export async function loadEsbuild() {
  return await import(pathToFileURL(createRequire(import.meta.url).resolve("esbuild")).href);
}
