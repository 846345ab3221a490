// `pnpm release:agent [--out-dir DIR]`: the agent's release tarball for operators,
// release/vantage-agent-<version>-<platform>-<arch>.tar.gz (and its .sha256), holding one folder
// vantage-agent-<version>/ with the bundle (apps/agent/build.mjs), raw.node, threadpool.cjs, the systemd
// unit and README of deploy/agent-release/, deploy/install-agent.sh, LICENSE and the bundled packages'
// notices. raw.node is built for the Node running this script: the tarball runs on that Node major only
// (its README and build-info.json say which; install-agent.sh checks it).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: { "out-dir": { type: "string", default: join(root, "release") } },
});
const outDir = resolve(opts["out-dir"]);
const { version } = JSON.parse(readFileSync(join(root, "apps/agent/package.json"), "utf8"));
const platform = `${process.platform}-${process.arch}`;
const name = `vantage-agent-${version}`;
const tarball = join(outDir, `${name}-${platform}.tar.gz`);

const staging = mkdtempSync(join(tmpdir(), "vantage-release-"));
try {
  const folder = join(staging, name);
  execFileSync(process.execPath, [join(root, "apps/agent/build.mjs"), "--outdir", folder], {
    stdio: "inherit",
  });
  rmSync(join(folder, ".inputs.json")); // the build's own bookkeeping (paths in this checkout)
  const info = JSON.parse(readFileSync(join(folder, "build-info.json"), "utf8"));

  copyFileSync(
    join(root, "deploy/agent-release/vantage-agent.service"),
    join(folder, "vantage-agent.service"),
  );
  copyFileSync(join(root, "deploy/install-agent.sh"), join(folder, "install-agent.sh"));
  chmodSync(join(folder, "install-agent.sh"), 0o755);
  copyFileSync(join(root, "LICENSE"), join(folder, "LICENSE"));
  const readme = readFileSync(join(root, "deploy/agent-release/README.md"), "utf8").replace(
    /\{\{(version|node_major|node|abi)\}\}/g,
    (_, key) => String({ version, node_major: info.node_major, node: info.node, abi: info.node_abi }[key]),
  );
  writeFileSync(join(folder, "README.md"), readme);
  writeFileSync(join(folder, "THIRD-PARTY-NOTICES.md"), notices(info.packages));
  // Where the packages sat in this checkout means nothing on the agent's host.
  info.packages = info.packages.map(({ dir: _dir, ...p }) => p);
  writeFileSync(join(folder, "build-info.json"), `${JSON.stringify(info, null, 2)}\n`);

  mkdirSync(outDir, { recursive: true });
  // Reproducible enough to compare: sorted names, root-owned, no gzip timestamp (SOURCE_DATE_EPOCH pins mtimes).
  const mtime = process.env.SOURCE_DATE_EPOCH ? [`--mtime=@${process.env.SOURCE_DATE_EPOCH}`] : [];
  const tar = execFileSync(
    "tar",
    ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", ...mtime, "-cf", "-", "-C", staging, name],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const gz = execFileSync("gzip", ["-n", "-9"], { input: tar, maxBuffer: 256 * 1024 * 1024 });
  writeFileSync(tarball, gz);
  const sha = createHash("sha256").update(gz).digest("hex");
  writeFileSync(`${tarball}.sha256`, `${sha}  ${relative(outDir, tarball)}\n`);
  process.stdout.write(
    `${relative(process.cwd(), tarball) || tarball}: ${(gz.length / 1024).toFixed(0)} KiB, sha256 ${sha}\n` +
      `  agent ${version} for ${platform}, Node ${info.node_major} only (built with ${info.node}, ABI ${info.node_abi})\n` +
      `  install: tar -xzf ${name}-${platform}.tar.gz && sudo ./${name}/install-agent.sh --env <id>.env --seed agent-<id>.nk\n`,
  );
} finally {
  rmSync(staging, { recursive: true, force: true });
}

/** Each bundled package's licence text, and nan's (compiled into raw.node). */
function notices(packages) {
  const rawSocketDir = packages.find((p) => p.name === "raw-socket")?.dir;
  const all = [...packages];
  if (rawSocketDir) {
    const nanDir = dirname(
      createRequire(join(root, rawSocketDir, "package.json")).resolve("nan/package.json"),
    );
    const nan = JSON.parse(readFileSync(join(nanDir, "package.json"), "utf8"));
    all.push({
      name: "nan",
      version: nan.version,
      license: nan.license,
      dir: relative(root, nanDir),
      compiled: true,
    });
  }
  const parts = [
    "# Third-party notices\n",
    "The agent bundle (`vantage-agent.mjs`) contains the following packages; `raw.node` is raw-socket's",
    "addon, compiled with nan's headers. Their licences follow.\n",
  ];
  for (const p of all.sort((a, b) => a.name.localeCompare(b.name))) {
    parts.push(
      `## ${p.name} ${p.version} (${p.license ?? "licence not declared"})${p.compiled ? ", in raw.node" : ""}\n`,
    );
    parts.push("```text", licenceText(join(root, p.dir), p).trim(), "```\n");
  }
  return `${parts.join("\n")}\n`;
}

function licenceText(dir, p) {
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
  if (file) return readFileSync(join(dir, file), "utf8");
  // raw-socket ships its MIT licence as the README's last section.
  const readme = readdirSync(dir).find((f) => /^readme\.md$/i.test(f));
  const section = readme && /^#+\s*Licen[cs]e\s*$([\s\S]*)/im.exec(readFileSync(join(dir, readme), "utf8"));
  if (section) return section[1];
  if (!existsSync(join(dir, "package.json"))) throw new Error(`${p.name}: no package.json in ${dir}`);
  throw new Error(`${p.name} ${p.version} ships no licence text: add it to scripts/release-agent.mjs`);
}
