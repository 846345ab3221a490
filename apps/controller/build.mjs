// Builds the controller into dist/ as ES modules that plain Node (20 or 24) runs, no TypeScript loader:
//
//   node apps/controller/build.mjs [--if-stale]        (or `pnpm build`, which builds every app)
//   node apps/controller/dist/main.mjs [--embedded]    (what `pnpm controller` and the systemd unit run)
//
// Entry points: main.mjs (the server) and the operator commands beside it, migrate.mjs, account-plan.mjs,
// secrets-rotate.mjs, add-agent.mjs (`pnpm agent:add`, `pnpm nats:controller-user`), password-worker.mjs
// (the bcrypt worker threads piscina starts from beside the bundle), embedded-agent.mjs (the embedded
// mode's agent child process), compile-worker.mjs (the thread a data reload runs on) and pglite-template.mjs
// (run at the end of the build: the migrated template new embedded databases load); shared code in
// chunk-*.mjs.
//
// The workspace packages (@vantage/*, whose exports are TypeScript sources) are bundled, and so are the
// plain-JavaScript npm packages in `bundledPackages` (below); the other npm packages stay external and load
// from node_modules at run time, so their own files (PGlite's wasm and data, Scalar's browser bundle,
// @ip-location-db's data, raw-socket's addon, piscina's workers) are found as before. The
// build is not relocatable: it runs from the checkout it was built in, which holds node_modules and the
// files the sources read beside themselves. Two rules make that work:
// - an npm package the controller's own package.json lists, resolving to the same files from dist/, stays a
//   bare `import "pkg"`; any other (a dependency of a workspace package only, e.g. @vantage/lookups's
//   maxmind) becomes a relative import of the file esbuild resolved for the importing package, as Node
//   would have resolved it from there;
// - `import.meta.url` in a workspace source means that source's own URL, as under tsx: data read beside the
//   sources (packages/lookups/data, apps/web/dist, node_modules/.cache, apps/agent/package.json) is found
//   where it is. Exception: modules in `bundleRelative` start code that is built into dist/ (a worker entry
//   point), so their `import.meta.url` stays the bundle's.
// --if-stale skips the build when the outputs are newer than every file the last build read (dist/
// build-meta.json lists them), this script, the lockfile and node_modules' install state.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { loadEsbuild } from "../web/esbuild.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const dist = join(here, "dist");
const metaFile = join(dist, "build-meta.json");

const entryPoints = {
  main: join(here, "src/main.ts"),
  migrate: join(here, "src/db/migrate-cli.ts"),
  "account-plan": join(here, "src/account-plan-cli.ts"),
  "secrets-rotate": join(here, "src/secret-rotate-cli.ts"),
  "add-agent": join(root, "scripts/add-agent.ts"),
  "password-worker": join(here, "src/modules/accounts/password-worker.mjs"),
  // The embedded mode's agent child process (src/embedded-agent/supervisor.ts forks it).
  "embedded-agent": join(here, "src/embedded-agent/child.ts"),
  // The worker thread a SIGHUP reload compiles the IP and reputation data on (@vantage/lookups' off-thread.ts).
  "compile-worker": join(root, "packages/lookups/src/worker/compile-worker.ts"),
  // Makes the migrated template new embedded databases start from (src/db/pglite-template.ts); run below.
  "pglite-template": join(here, "src/db/pglite-template-cli.ts"),
};

/**
 * npm packages bundled like the sources. Node's ES module loader resolves, reads and compiles each file of
 * an external package on its own (zod, the MCP SDK, ajv and the NATS client are hundreds of files): an
 * api-only controller spent 2.1 s of CPU from start to "controller running" with them external, 1.8 s
 * with them bundled (docs/benchmarks.md, 2026-12-01). Each is plain JavaScript that reads no file of its
 * own at run time, and no package that stays external imports one of them at run time. Kysely and its two
 * dialects are bundled together (two copies of kysely would be two sets of classes): external, kysely's
 * 400 files cost an api-only controller about 0.3 s of CPU at every start.
 */
const bundledPackages = new Set([
  "zod",
  "hono",
  "@hono/node-server",
  "@hono/zod-openapi",
  "@hono/zod-validator",
  "@asteasolutions/zod-to-openapi",
  "openapi3-ts",
  "@modelcontextprotocol/sdk",
  "zod-to-json-schema",
  "content-type",
  "ajv",
  "ajv-formats",
  "fast-uri",
  "fast-deep-equal",
  "json-schema-traverse",
  "postgres",
  "kysely",
  "kysely-pglite-dialect",
  "kysely-postgres-js",
  "prom-client",
  "tdigest",
  "bintrees",
  "@opentelemetry/api",
  "@nats-io/nats-core",
  "@nats-io/transport-node",
  "@nats-io/jetstream",
  "@nats-io/nkeys",
  "@nats-io/nuid",
  "tweetnacl",
  "standardwebhooks",
  "@stablelib/base64",
  "fast-sha256",
  "dns-packet",
  "@leichtgewicht/ip-codec",
]);

/** Sources whose `import.meta.url` names a file built into dist/: `new URL("./password-worker.mjs", …)`. */
const bundleRelative = new Set([
  join(here, "src/modules/accounts/password-hasher.ts"),
  join(here, "src/embedded-agent/supervisor.ts"),
  join(root, "packages/lookups/src/worker/off-thread.ts"),
]);

/** Besides the sources: a change to any of these (a new install, another lockfile) means a new build. */
const fixedInputs = [
  fileURLToPath(import.meta.url),
  join(here, "package.json"),
  join(root, "tsconfig.json"),
  join(root, "tsconfig.base.json"),
  join(root, "pnpm-lock.yaml"),
  join(root, "node_modules/.modules.yaml"),
];

if (process.argv.includes("--if-stale") && isFresh()) process.exit(0);

const started = Date.now();
const { build } = await loadEsbuild();
const ownDependencies = new Set(
  Object.keys(JSON.parse(readFileSync(join(here, "package.json"), "utf8")).dependencies ?? {}),
);
mkdirSync(dist, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints,
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Node's own conditions only (import/require, node, default): not esbuild's extra `module`.
  conditions: [],
  // Stack traces and `constructor.name` keep the sources' names; source maps for NODE_OPTIONS=--enable-source-maps.
  keepNames: true,
  sourcemap: "linked",
  legalComments: "none",
  // The CommonJS packages bundled call `require` for Node's built-in modules: an ES module has none.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
  },
  metafile: true,
  logLevel: "warning",
  plugins: [npmPackagesExternal(), sourceUrls()],
});

// Files of an earlier build that this one did not write (chunks are named by their content).
const written = new Set(Object.keys(result.metafile.outputs).map((p) => resolve(root, p)));
for (const name of readdirSync(dist)) {
  const path = join(dist, name);
  if (!written.has(path) && path !== metaFile) rmSync(path, { force: true });
}
for (const name of Object.keys(entryPoints)) {
  if (!written.has(join(dist, `${name}.mjs`))) throw new Error(`build wrote no dist/${name}.mjs`);
}
// What a bundle-relative module loads from beside itself must be a file of this build.
for (const source of bundleRelative) {
  for (const [, name] of readFileSync(source, "utf8").matchAll(
    /new URL\("\.\/([^"]+)", import\.meta\.url\)/g,
  )) {
    if (!written.has(join(dist, name)))
      throw new Error(`${relative(root, source)} loads ./${name}, which the build did not write into dist/`);
  }
}
writeFileSync(
  metaFile,
  `${JSON.stringify(
    {
      built_at: new Date(started).toISOString(),
      started_ms: started,
      node: process.versions.node,
      inputs: Object.keys(result.metafile.inputs)
        .map((p) => relative(root, resolve(root, p)))
        .sort(),
      outputs: [...written].map((p) => relative(root, p)).sort(),
    },
    null,
    2,
  )}\n`,
);
// The migrated template of new embedded databases, made by the bundle just built (a no-op when the
// migrations have not changed). Without it a first embedded start makes its database from scratch: slower,
// not wrong, so a failure here is a warning.
const template = spawnSync(process.execPath, [join(dist, "pglite-template.mjs")], {
  stdio: ["ignore", 2, 2],
});
if (template.status !== 0) {
  console.warn(
    `warning: the embedded database template was not made (${template.signal ?? `exit ${template.status}`})`,
  );
}
console.log(`controller built into ${dist} in ${Date.now() - started} ms`);

/** Fresh when every output exists and no input changed since the build that wrote them started. */
function isFresh() {
  if (!existsSync(metaFile)) return false;
  let meta;
  try {
    meta = JSON.parse(readFileSync(metaFile, "utf8"));
  } catch {
    return false;
  }
  if (typeof meta.started_ms !== "number" || !Array.isArray(meta.inputs) || !Array.isArray(meta.outputs))
    return false;
  if (!meta.outputs.every((p) => existsSync(resolve(root, p)))) return false;
  for (const p of fixedInputs) if (existsSync(p) && statSync(p).mtimeMs > meta.started_ms) return false;
  for (const p of meta.inputs.map((i) => resolve(root, i))) {
    // A source that went away changed the graph (the import naming it changed too, but be safe).
    if (!existsSync(p) || statSync(p).mtimeMs > meta.started_ms) return false;
  }
  return true;
}

function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** A relative import from dist/ of `file`, percent-encoding what a URL path would misread. */
function importFromDist(file) {
  const rel = relative(dist, file).split(sep).map(encodeURIComponent).join("/");
  return (rel.startsWith(".") ? rel : `./${rel}`).replaceAll("%40", "@").replaceAll("%2B", "+");
}

/** npm packages stay external (see the header): bare when the controller lists them, else by path. */
function npmPackagesExternal() {
  return {
    name: "npm-packages-external",
    setup(b) {
      b.onResolve({ filter: /^[^./#]/ }, async (args) => {
        if (args.pluginData?.plain || isBuiltin(args.path)) return undefined;
        if (args.path.startsWith("@vantage/")) return undefined; // workspace sources: bundled
        if (bundledPackages.has(packageName(args.path))) return undefined;
        const plain = { plain: true };
        const found = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: plain,
        });
        if (found.errors.length > 0) return { errors: found.errors };
        if (found.external) return { path: args.path, external: true };
        if (ownDependencies.has(packageName(args.path))) {
          const fromHere = await b.resolve(args.path, {
            kind: args.kind,
            resolveDir: here,
            pluginData: plain,
          });
          if (fromHere.errors.length === 0 && fromHere.path === found.path)
            return { path: args.path, external: true };
        }
        return { path: importFromDist(found.path), external: true };
      });
    },
  };
}

/** `import.meta.url` in a workspace source: that source's URL, computed from the bundle's own at run time. */
function sourceUrls() {
  const loaders = { ".ts": "ts", ".mts": "ts", ".tsx": "tsx", ".js": "js", ".mjs": "js" };
  return {
    name: "source-urls",
    setup(b) {
      b.onLoad({ filter: /\.(m?ts|tsx|m?js)$/ }, (args) => {
        if (!args.path.startsWith(root + sep) || args.path.includes(`${sep}node_modules${sep}`))
          return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta")) return undefined;
        const loader = loaders[extname(args.path)];
        if (/\bimport\.meta\.(dirname|filename)\b/.test(source)) {
          return {
            errors: [
              {
                text: "import.meta.dirname/filename: use import.meta.url, which build.mjs maps to the source",
              },
            ],
          };
        }
        if (bundleRelative.has(args.path)) return { contents: source, loader };
        const url = JSON.stringify(importFromDist(args.path));
        const contents = source.replace(/\bimport\.meta\.url\b/g, `new URL(${url}, import.meta.url).href`);
        return { contents, loader };
      });
    },
  };
}
