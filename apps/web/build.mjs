// Builds the dashboard into dist/: one JavaScript bundle (esbuild, Preact's JSX), one stylesheet (every
// CSS file a module imports, styles.css first), and the
// offline world map (world-atlas's 110m countries). Nothing is fetched at run time: the controller serves
// dist/ as is. `node build.mjs` (or `pnpm web:build`); `--if-stale` builds only when a source is newer.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const require = createRequire(import.meta.url);

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

if (process.argv.includes("--if-stale") && existsSync(join(dist, "app.js"))) {
  const built = statSync(join(dist, "app.js")).mtimeMs;
  if (built >= Math.max(newest(join(here, "src")), statSync(join(here, "build.mjs")).mtimeMs))
    process.exit(0);
}

mkdirSync(dist, { recursive: true });
const started = Date.now();
await build({
  entryPoints: { app: join(here, "src/main.tsx") },
  outdir: dist,
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "esm",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "linked",
  logLevel: "warning",
});
copyFileSync(require.resolve("world-atlas/countries-110m.json"), join(dist, "countries-110m.json"));
copyFileSync(require.resolve("uplot/dist/uPlot.min.css"), join(dist, "uplot.css"));
console.log(`dashboard built into ${dist} in ${Date.now() - started} ms`);
