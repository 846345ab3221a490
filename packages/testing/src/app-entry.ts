import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (this file is packages/testing/src/app-entry.ts). */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** A run script of package.json that starts a process of ours: the two services and three operator commands. */
export type App = "agent" | "controller" | "secrets:rotate" | "account:plan" | "agent:add";

/** Set by the suite's global set-up (./global-setup.ts) once the agent and controller bundles are built. */
export const BUILT_ENV = "VANTAGE_TEST_BUILT";

const sources: Record<App, { main: string; preload?: string }> = {
  agent: { main: "apps/agent/src/main.ts", preload: "apps/agent/src/threadpool.cjs" },
  controller: { main: "apps/controller/src/main.ts" },
  "secrets:rotate": { main: "apps/controller/src/secret-rotate-cli.ts" },
  "account:plan": { main: "apps/controller/src/account-plan-cli.ts" },
  "agent:add": { main: "scripts/add-agent.ts" },
};

/**
 * The node arguments of package.json's run script for `app` (what follows its last `&& node`): the bundle
 * and, for the agent, its production flags and thread-pool preload. Paths stay as the script has them,
 * relative to the checkout's root (`root`: this repository, or another checkout a bench compares with).
 */
export function deployedArgs(app: App, root = repoRoot): string[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const run = (pkg.scripts[app] ?? "").split("&&").pop()?.trim().split(/\s+/) ?? [];
  if (run[0] !== "node" || run.length < 2)
    throw new Error(`package.json's ${app} script does not end in a node run`);
  return run.slice(1);
}

/** Whether this test run starts the built bundles (the global set-up built them) rather than tsx. */
export function runsBuilt(): boolean {
  return process.env[BUILT_ENV] === "1";
}

/**
 * The node arguments that start `app` in a test, with absolute paths (any working directory will do):
 * - in the suite, the bundles as deployed (package.json's run script: the agent's production flags and
 *   preload), which the global set-up built from the sources under test, so a start costs what a user's
 *   does (a start through tsx compiles the sources again each time, about 2 s of CPU more);
 * - without the global set-up (a file run alone with another runner), the TypeScript entry through tsx.
 * `preload: false` leaves out the agent's thread-pool preload (a start as a careless unit would do it).
 */
export function appArgs(app: App, opts: { preload?: boolean } = {}): string[] {
  const withPreload = opts.preload ?? true;
  if (runsBuilt()) {
    const args = deployedArgs(app);
    const out: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === "--require" && !withPreload) {
        i++;
        continue;
      }
      out.push(a.startsWith("-") || isAbsolute(a) ? a : join(repoRoot, a));
    }
    return out;
  }
  const { main, preload } = sources[app];
  return [
    ...(preload && withPreload ? ["--require", join(repoRoot, preload)] : []),
    "--import",
    "tsx",
    join(repoRoot, main),
  ];
}
