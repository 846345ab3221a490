// Bundles src/main.ts into dist/vantage.mjs: one file, no dependencies but Node itself, runnable as
// `vantage` once installed (`npm i -g ./apps/cli`). `node apps/cli/build.mjs` (or `pnpm cli:build`).
import { chmodSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

// The CLI adds no dependency of its own: esbuild is the one the dashboard (apps/web) already installs.
async function loadEsbuild() {
  const fromWeb = createRequire(join(here, "../web/package.json"));
  return await import(pathToFileURL(fromWeb.resolve("esbuild")).href);
}

const { build } = await loadEsbuild();
const outfile = join(here, "dist/vantage.mjs");
mkdirSync(dirname(outfile), { recursive: true });
await build({
  entryPoints: [join(here, "src/main.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  banner: { js: "#!/usr/bin/env node" },
  legalComments: "none",
  logLevel: "warning",
});
chmodSync(outfile, 0o755);
