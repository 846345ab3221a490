// Bundles src/main.ts, with every dependency (npm packages and the @vantage/* workspace sources), into one
// ES module, dist/vantage-agent.mjs, that runs on a bare Node (20 or 24) with no node_modules:
//
//   node apps/agent/build.mjs [--if-stale] [--outdir DIR]
//   node --require apps/agent/dist/threadpool.cjs apps/agent/dist/vantage-agent.mjs   (same variables as `pnpm agent`)
//
// Beside it: raw.node (raw-socket's native addon, for ping and traceroute, built for the Node running this
// script: it loads on that Node major only, see build-info.json) and threadpool.cjs (the thread-pool preload,
// copied as it is). --if-stale skips the build when every output is newer than every input the last build
// read (listed in dist/.inputs.json). --outdir writes elsewhere (the release script stages its tarball so).
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadEsbuild } from "../web/esbuild.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const { values: opts } = parseArgs({
  options: {
    "if-stale": { type: "boolean", default: false },
    outdir: { type: "string", default: join(here, "dist") },
  },
});
const outdir = resolve(opts.outdir);
const outfile = join(outdir, "vantage-agent.mjs");
const inputsFile = join(outdir, ".inputs.json");
const threadpoolSource = join(here, "src/threadpool.cjs");
const agentPackage = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));

// raw-socket as the probes package resolves it; its index.js loads ./build/Release/raw.node.
const requireFromProbes = createRequire(join(root, "packages/probes/package.json"));
const rawSocketDir = dirname(requireFromProbes.resolve("raw-socket/package.json"));
const rawNodeBuilt = join(rawSocketDir, "build/Release/raw.node");

/** Files every build reads besides the bundled sources. */
const fixedInputs = [
  fileURLToPath(import.meta.url),
  join(here, "package.json"),
  threadpoolSource,
  rawNodeBuilt,
  join(root, "pnpm-lock.yaml"),
];
const outputs = [
  outfile,
  join(outdir, "raw.node"),
  join(outdir, "threadpool.cjs"),
  join(outdir, "build-info.json"),
];

if (opts["if-stale"] && isFresh()) process.exit(0);

const { build } = await loadEsbuild();
mkdirSync(outdir, { recursive: true });
const rawNode = rawNodeForThisRuntime();

const result = await build({
  entryPoints: [join(here, "src/main.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // pino and raw-socket are CommonJS: their require() of Node's modules needs a real require in an ES module.
  banner: { js: banner() },
  define: { __VANTAGE_AGENT_VERSION__: JSON.stringify(agentPackage.version) },
  legalComments: "none",
  // Whitespace and syntax only: names stay as written (stack traces keep them); the source V8 holds for the
  // process's life shrinks from 0.74 to 0.47 MB (idle RSS −1.2 MiB, bench:agent).
  minifyWhitespace: true,
  minifySyntax: true,
  // One byte per character in V8 (see asciiOnly below).
  charset: "ascii",
  plugins: [builtinsByRequire(), rawSocketAddonBesideBundle(), zodMini(), zodEnglishOnly()],
  metafile: true,
  logLevel: "warning",
});

asciiOnly(outfile);
copyFileSync(rawNode.path, join(outdir, "raw.node"));
copyFileSync(threadpoolSource, join(outdir, "threadpool.cjs"));
writeFileSync(
  join(outdir, "build-info.json"),
  `${JSON.stringify(
    {
      name: "vantage-agent",
      version: agentPackage.version,
      node: process.versions.node,
      node_major: Number(process.versions.node.split(".")[0]),
      // raw.node loads only on a Node of this NODE_MODULE_VERSION (process.versions.modules).
      node_abi: process.versions.modules,
      platform: `${process.platform}-${process.arch}`,
      packages: bundledPackages(result.metafile),
    },
    null,
    2,
  )}\n`,
);
// Inputs of the plugins' own namespaces ("zod-english-only:…") are no files; their files are listed too.
const sourceInputs = Object.keys(result.metafile.inputs).filter((p) => !/^[a-z-]+:/.test(p));
const inputs = [...new Set([...fixedInputs, ...sourceInputs.map((p) => resolve(root, p))])];
writeFileSync(inputsFile, `${JSON.stringify(inputs.map((p) => relative(outdir, p)))}\n`);

function isFresh() {
  if (!existsSync(inputsFile) || !outputs.every((p) => existsSync(p))) return false;
  // raw.node is this Node's: another Node (20 ↔ 24) needs another build.
  const built = JSON.parse(readFileSync(join(outdir, "build-info.json"), "utf8"));
  if (built.node_abi !== process.versions.modules) return false;
  const oldest = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const listed = JSON.parse(readFileSync(inputsFile, "utf8")).map((p) => resolve(outdir, p));
  for (const p of new Set([...fixedInputs, ...listed])) {
    // A file that went away changed the graph: the import that named it changed too, but be safe.
    if (!existsSync(p) || statSync(p).mtimeMs > oldest) return false;
  }
  return true;
}

/**
 * The addon in node_modules is built for one Node ABI; scripts/native-addons.mjs keeps one build per ABI in
 * node_modules/.cache/vantage-native. Ship the one this Node loads, or say how to get it.
 */
function rawNodeForThisRuntime() {
  const abi = process.versions.modules;
  const candidates = [
    rawNodeBuilt,
    join(root, `node_modules/.cache/vantage-native/raw-socket-abi${abi}.node`),
  ];
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    try {
      process.dlopen({ exports: {} }, path);
      return { path };
    } catch {
      // built for another Node: try the next one
    }
  }
  throw new Error(
    `no raw-socket build loads on Node ${process.versions.node} (ABI ${abi}): run \`node scripts/native-addons.mjs\``,
  );
}

/**
 * Runs first in the bundle: a `require` for the CommonJS parts, then threadpool.cjs's own code (inlined, so
 * the rule lives in one file). An ES module's first line is too late for the thread pool on Node versions
 * whose module loader reads the entry file asynchronously (Node 20 does: the pool already started with 4
 * threads); Node 24 reads it synchronously, so there this is in time. The unit starts the bundle with
 * `--require threadpool.cjs`, which is in time everywhere; main.ts warns when only this banner sized it on
 * a Node where that may be too late.
 */
function banner() {
  const threadpool = readFileSync(threadpoolSource, "utf8");
  return [
    // process.getBuiltinModule, not an ES import of node:module (see builtinsByRequire).
    'const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);',
    'const __vantageBundleDir = require("node:path").dirname(require("node:url").fileURLToPath(import.meta.url));',
    "const __vantagePoolPreset = Boolean(process.env.UV_THREADPOOL_SIZE);",
    `(function (module) {\n${threadpool}\n})({ exports: {} });`,
    'if (!__vantagePoolPreset) globalThis[Symbol.for("vantage.agent.threadpoolSizedBy")] = "bundle";',
  ].join("\n");
}

/**
 * Node's own modules by `require`, never by an ES `import`: Node builds an ES module's view of a built-in by
 * reading every one of its exports, which runs their lazy getters. On Node 24, `import "node:http"` so reads
 * `http.WebSocket` (and its siblings), which loads undici and with it http2, zlib, worker_threads, perf_hooks
 * and web streams, none of which the agent uses: 3 MiB of its idle RSS (docs/benchmarks.md). `import
 * "node:crypto"` likewise loads webcrypto.
 * `require` returns the same object without reading anything. The banner's `require` does it, and esbuild's
 * interop reads a named import off that object when it is used.
 */
function builtinsByRequire() {
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  return {
    name: "builtins-by-require",
    setup(b) {
      b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
        if (args.kind !== "import-statement" || !builtins.has(args.path)) return undefined;
        return { path: args.path, namespace: "builtin-by-require" };
      });
      b.onLoad({ filter: /.*/, namespace: "builtin-by-require" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
    },
  };
}

/** raw-socket's `require("./build/Release/raw.node")` becomes a load of raw.node beside the bundle. */
function rawSocketAddonBesideBundle() {
  return {
    name: "raw-socket-addon-beside-bundle",
    setup(b) {
      b.onLoad({ filter: /[\\/]raw-socket[\\/]index\.js$/ }, (args) => {
        const source = readFileSync(args.path, "utf8");
        const needle = 'require ("./build/Release/raw.node")';
        if (!source.includes(needle)) {
          return { errors: [{ text: `raw-socket's index.js no longer loads ${needle}: update build.mjs` }] };
        }
        // __vantageBundleDir comes from the banner: import.meta here would make esbuild take this file for ESM.
        // Exit 2 (a configuration error, which the unit does not restart) with one line saying which Node.
        const builtFor = `Node ${process.versions.node.split(".")[0]} (ABI ${process.versions.modules})`;
        const load = `(() => {
  const path = require("node:path").join(__vantageBundleDir, "raw.node");
  try {
    return require(path);
  } catch (err) {
    process.stderr.write("vantage-agent: cannot load " + path + " (raw-socket, for ping and traceroute) on Node " +
      process.versions.node + " (ABI " + process.versions.modules + "): this build is for " + ${JSON.stringify(builtFor)} +
      ": run it with that Node major, or build it with this one (pnpm build, pnpm release:agent): " + err.message + "\\n");
    process.exit(2);
  }
})()`;
        return { contents: source.replace(needle, load), loader: "js", resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * zod's `z.locales` and `z.core.locales` re-export the error messages of 50 languages, which a bundle cannot
 * leave out (a namespace object keeps them all). The agent never picks a language (zod sets English itself),
 * so its bundle keeps English only: 3.5 MB less RSS on Node 24, 1 MB on Node 20 (docs/benchmarks.md).
 */
/**
 * `zod` as `zod/mini` for everything bundled: the schemas the agent runs (@vantage/probes' job params,
 * @vantage/protocol's messages, the agent's config) use only the API the two share, so they build the same
 * validators, but zod/mini brings 88 kB of zod instead of 500 kB, and the agent's idle RSS is 2.3 MiB
 * lower on Node 24 (bench:agent). `pnpm typecheck` holds those files to zod/mini's API
 * (tsconfig.zod-mini.json); a bundled module that imports from `zod` and used a method only full zod has
 * would fail there first.
 */
function zodMini() {
  return {
    name: "zod-mini",
    setup(b) {
      b.onResolve({ filter: /^zod$/ }, (args) =>
        b.resolve("zod/mini", { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer }),
      );
    },
  };
}

function zodEnglishOnly() {
  return {
    name: "zod-english-only",
    setup(b) {
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
        if (!/[\\/]zod[\\/]v4[\\/]/.test(args.importer)) return undefined;
        return { path: join(dirname(args.importer), "../locales/en.js"), namespace: "zod-english-only" };
      });
      b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path)};`,
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/**
 * V8 keeps a script's source for its whole life, one byte per character unless one character is beyond
 * Latin-1: then two for all 1.4 MB. `charset: "ascii"` escapes strings, regular expressions and names, but
 * esbuild copies comments as they are (an em dash in a dependency's comment is enough), so what is left
 * beyond ASCII sits in comments, where an escape sequence is just text.
 */
function asciiOnly(file) {
  const text = readFileSync(file, "utf8");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: everything outside ASCII, whose range starts at NUL
  const escaped = text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
  if (escaped !== text) writeFileSync(file, escaped);
}

/** The npm packages inside the bundle (name, version, licence, folder), for the release's notices. */
function bundledPackages(metafile) {
  const found = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const path = input.replaceAll("\\", "/");
    const at = path.lastIndexOf("node_modules/");
    if (at < 0) continue;
    const rest = path.slice(at + "node_modules/".length).split("/");
    const name = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    if (found.has(name)) continue;
    const dir = resolve(root, path.slice(0, at + "node_modules/".length + name.length));
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    found.set(name, { name, version: pkg.version, license: pkg.license ?? null, dir: relative(root, dir) });
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}
