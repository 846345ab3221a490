// Bundles src/main.ts into dist/vantage.mjs: one file, no dependencies but Node itself, runnable as
// `vantage` once installed (`npm i -g ./apps/cli`). `node apps/cli/build.mjs` (or `pnpm cli:build`).
import { chmodSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadEsbuild } from "../web/esbuild.mjs";

const here = dirname(fileURLToPath(import.meta.url));

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
