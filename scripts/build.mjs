// `pnpm build`: every app compiled to JavaScript that plain Node runs (no tsx, no TypeScript sources):
//
//   node scripts/build.mjs [--if-stale] [web] [cli] [agent] [controller]     (no name: all four, in that order)
//
//   web         apps/web/dist/          the dashboard the controller serves    (apps/web/build.mjs)
//   cli         apps/cli/dist/vantage.mjs                                      (apps/cli/build.mjs)
//   agent       apps/agent/dist/vantage-agent.mjs, one self-contained file     (apps/agent/build.mjs)
//   controller  apps/controller/dist/main.mjs and the operator commands        (apps/controller/build.mjs),
//               then (without --if-stale) the IP data cache                     (scripts/ip-data-cache.ts)
//
// --if-stale builds only what is older than its inputs, so the run scripts (`pnpm controller`, `pnpm agent`,
// `pnpm start`, …) call it before every start: a fresh build costs a few file stats and esbuild is not even
// loaded, so a production-only install (no esbuild) runs a build made earlier. The agent's and the
// controller's build scripts judge that themselves from the files their last build read; for the dashboard
// and the CLI it is judged here, from their sources. What the builds print goes to stderr, so a command
// run after the build (e.g. `pnpm agent:add`, whose environment block is copied from stdout) owns stdout.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Each app's build. `selfChecked`: its script takes --if-stale itself. Otherwise `output` is compared with
 * every file under `inputs` (directories walked, node_modules and dist skipped).
 */
const steps = {
  web: {
    script: "apps/web/build.mjs",
    output: "apps/web/dist/app.js",
    inputs: ["apps/web/src", "apps/web/build.mjs", "apps/web/package.json", "pnpm-lock.yaml"],
  },
  cli: {
    script: "apps/cli/build.mjs",
    output: "apps/cli/dist/vantage.mjs",
    inputs: ["apps/cli/src", "apps/cli/build.mjs", "apps/cli/package.json", "pnpm-lock.yaml"],
  },
  agent: { script: "apps/agent/build.mjs", selfChecked: true },
  controller: { script: "apps/controller/build.mjs", selfChecked: true },
};

const args = process.argv.slice(2);
const ifStale = args.includes("--if-stale");
const names = args.filter((a) => a !== "--if-stale");
for (const name of names) {
  if (!(name in steps)) {
    process.stderr.write(`usage: node scripts/build.mjs [--if-stale] [${Object.keys(steps).join("] [")}]\n`);
    process.exit(2);
  }
}

for (const [name, step] of Object.entries(steps)) {
  if (names.length > 0 && !names.includes(name)) continue;
  if (ifStale && !step.selfChecked && isFresh(step)) continue;
  const flags = ifStale && step.selfChecked ? ["--if-stale"] : [];
  const run = spawnSync(process.execPath, [join(root, step.script), ...flags], {
    cwd: root,
    stdio: ["ignore", 2, 2],
  });
  if (run.status !== 0) {
    process.stderr.write(`build of ${name} failed (${step.script}: ${run.signal ?? `exit ${run.status}`})\n`);
    process.exit(run.status || 1);
  }
}

// A full build of the controller also compiles the IP data's ASN table into its cache (once per data
// version; a no-op when it is there), so an operator's `pnpm build` leaves nothing for the first start to
// compile (that took 9.6–10.6 s on an operator's host). Skipped by --if-stale runs, which precede every start.
if (!ifStale && (names.length === 0 || names.includes("controller"))) {
  const run = spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts/ip-data-cache.ts")], {
    cwd: root,
    stdio: ["ignore", 2, 2],
  });
  if (run.status !== 0) {
    process.stderr.write(
      `warning: the IP data cache was not compiled (${run.signal ?? `exit ${run.status}`}); the controller ` +
        "compiles it at its first start instead\n",
    );
  }
}

function isFresh(step) {
  const output = join(root, step.output);
  if (!existsSync(output)) return false;
  const built = statSync(output).mtimeMs;
  return step.inputs.every((p) => newest(join(root, p)) <= built);
}

/** The latest modification time of a file, or of any file under a directory (0 when it does not exist). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let t = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name === "dist") continue;
    t = Math.max(t, newest(join(path, e.name)));
  }
  return t;
}
