import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { BUILT_ENV, repoRoot } from "./app-entry.js";

/**
 * Vitest's global set-up (vitest.config.ts): builds the agent and controller bundles from the sources under
 * test (`--if-stale`: a few file stats when nothing changed, about 5 s when something did) and tells the
 * test workers, which inherit this environment, to start those processes as deployed (app-entry.ts).
 * On Node 22 and later, the processes they start keep the code Node compiled in `node_modules/.cache`
 * (NODE_COMPILE_CACHE, unless set): a built controller then starts on 1.6 s of CPU rather than 1.8 s
 * (Node 24 here, docs/benchmarks.md, 2026-12-01). Node 20 ignores the variable.
 */
export default function setup(): void {
  const run = spawnSync(
    process.execPath,
    [join(repoRoot, "scripts/build.mjs"), "--if-stale", "agent", "controller"],
    {
      cwd: repoRoot,
      encoding: "utf8",
    },
  );
  if (run.status !== 0)
    throw new Error(`the bundles the tests start did not build (exit ${run.status}):\n${run.stderr}`);
  process.env[BUILT_ENV] = "1";
  process.env.NODE_COMPILE_CACHE ??= join(repoRoot, "node_modules/.cache/vantage-node-compile");
}
