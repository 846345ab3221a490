import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect, nkeyAuthenticator } from "@nats-io/transport-node";
import {
  agentKey,
  createAgentCredentials,
  createControllerCredentials,
  renderUsers,
} from "@vantage/nats-auth";
import { freePort, natsServerBinary, waitForPort } from "@vantage/testing";
import { checkAuthorizationEnforced } from "@vantage/transport";
import { describe, expect, it } from "vitest";
import { AGENT_NODE_OPTIONS } from "./testing/agent-process.js";

const repoFile = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const template = repoFile("deploy/nats/nats-server.conf");
const dropIn = repoFile("deploy/nats/nats-server.service.d/vantage.conf");
/** Debian's packaged unit (`apt-get install nats-server`), when this machine has it. */
const packagedUnit = "/lib/systemd/system/nats-server.service";

/** A directory with the server config template and a generated users file next to it. */
function configDir(opts: { port?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "vantage-deploy-"));
  const conf = readFileSync(template, "utf8");
  if (opts.port !== undefined) {
    expect(conf).toMatch(/^port: 4222$/m);
    expect(conf).toMatch(/^ {2}store_dir: "\/var\/lib\/nats\/jetstream"$/m);
    // The running server's JetStream store goes in the test's directory, not the machine's /var/lib.
    const local = conf
      .replace(/^port: 4222$/m, `port: ${opts.port}`)
      .replace(/^ {2}store_dir: .*$/m, `  store_dir: ${JSON.stringify(join(dir, "jetstream"))}`);
    writeFileSync(join(dir, "nats-server.conf"), local);
  } else copyFileSync(template, join(dir, "nats-server.conf"));
  const agent = createAgentCredentials("fra-1");
  writeFileSync(
    join(dir, "users.conf"),
    renderUsers([
      { key: "controller", user: createControllerCredentials().user },
      { key: agentKey("fra-1"), user: agent.user },
    ]),
  );
  return { dir, config: join(dir, "nats-server.conf"), agent };
}

/** The settings of a systemd unit file, in order, per section (`Key=` with an empty value included). */
function parseUnit(text: string): Map<string, Array<[string, string]>> {
  const sections = new Map<string, Array<[string, string]>>();
  let current: Array<[string, string]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = [];
      sections.set(section[1]!, current);
      continue;
    }
    expect(line.endsWith("\\"), `no continuation lines: ${line}`).toBe(false);
    const eq = line.indexOf("=");
    if (eq < 0 || !current) throw new Error(`not a unit file setting: ${line}`);
    current.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return sections;
}

const values = (settings: Array<[string, string]> | undefined, key: string) =>
  (settings ?? []).filter(([k]) => k === key).map(([, v]) => v);

/** Runs an Exec line (no shell, as systemd does for these) with one path swapped for a test copy. */
function argv(line: string, from: string, to: string): [string, ...string[]] {
  const words = line.split(/\s+/).map((w) => (w === from ? to : w));
  return words as [string, ...string[]];
}

/** The binary as this machine has it: the unit's absolute path, else the one the tests use. */
const binary = (path: string) => (existsSync(path) ? path : natsServerBinary());

describe("deploy/nats", () => {
  it("the server config template with a generated users file is valid for nats-server", () => {
    const { dir, config } = configDir();
    try {
      const res = spawnSync(natsServerBinary(), ["-t", "-c", config], { encoding: "utf8", timeout: 10_000 });
      if (res.error) throw new Error(`cannot run nats-server (${res.error.message}); set NATS_SERVER_BIN`);
      expect(res.status, res.stderr + res.stdout).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("deploy/nats/nats-server.service.d/vantage.conf (drop-in for Debian's nats-server unit)", () => {
  const service = parseUnit(readFileSync(dropIn, "utf8")).get("Service");
  const execStart = values(service, "ExecStart");
  const execReload = values(service, "ExecReload");
  const doc = readFileSync(repoFile("docs/operations.md"), "utf8");
  /** Where docs/operations.md tells operators to put the configuration. */
  const docConfigPath = /Copy \[`deploy\/nats\/nats-server\.conf`\]\([^)]*\) to `([^`]+)`/.exec(doc)?.[1];

  it("replaces the packaged ExecStart with one reading the configuration docs/operations.md installs", () => {
    expect(docConfigPath).toBe("/etc/nats/nats-server.conf");
    // An empty ExecStart= first: a simple service with two ExecStart lines does not start at all.
    expect(execStart).toEqual(["", `/usr/sbin/nats-server -c ${docConfigPath}`]);
    // Reload checks the file, then signals the server (what Debian's unit does on its own).
    expect(execReload).toEqual([
      "",
      `/usr/sbin/nats-server -t -c ${docConfigPath}`,
      "/bin/kill -s HUP $MAINPID",
    ]);
    // The template says where it goes, and the docs install the drop-in where systemd reads it.
    expect(readFileSync(template, "utf8")).toContain(`copy this file to ${docConfigPath}`);
    expect(doc).toContain("/etc/systemd/system/nats-server.service.d/vantage.conf");
    expect(doc).toContain("deploy/nats/nats-server.service.d/vantage.conf");
  });

  it.runIf(existsSync(packagedUnit))(
    "matches Debian's packaged unit (binary, type) and passes systemd-analyze",
    () => {
      const packaged = parseUnit(readFileSync(packagedUnit, "utf8")).get("Service");
      const [packagedStart] = values(packaged, "ExecStart");
      expect(packagedStart?.split(/\s+/)[0]).toBe("/usr/sbin/nats-server");
      expect(values(packaged, "Type")).toEqual(["simple"]);

      const analyze = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" });
      if (analyze.error) return; // no systemd tools here: the checks above still hold
      const dir = mkdtempSync(join(tmpdir(), "vantage-unit-"));
      try {
        copyFileSync(packagedUnit, join(dir, "nats-server.service"));
        mkdirSync(join(dir, "nats-server.service.d"));
        copyFileSync(dropIn, join(dir, "nats-server.service.d", "vantage.conf"));
        // The trailing ":" keeps systemd's own search path after ours.
        const res = spawnSync("systemd-analyze", ["verify", "nats-server.service"], {
          encoding: "utf8",
          env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:` },
          timeout: 20_000,
        });
        expect(res.status, res.stderr + res.stdout).toBe(0);
        expect(res.stderr + res.stdout).not.toMatch(/vantage\.conf|nats-server\.service/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("its ExecReload check accepts the configuration and its ExecStart serves it with permissions", async () => {
    if (!docConfigPath) throw new Error("docs/operations.md names no configuration path");
    const port = await freePort();
    const { dir, config, agent } = configDir({ port });
    let server: ChildProcess | undefined;
    try {
      const [checkBin, ...checkArgs] = argv(execReload[1] ?? "", docConfigPath, config);
      const check = spawnSync(binary(checkBin), checkArgs, { encoding: "utf8", timeout: 10_000 });
      expect(check.status, check.stderr + check.stdout).toBe(0);

      const [startBin, ...startArgs] = argv(execStart[1] ?? "", docConfigPath, config);
      expect(startArgs).toEqual(["-c", config]);
      let stderr = "";
      server = spawn(binary(startBin), startArgs, { stdio: ["ignore", "ignore", "pipe"] });
      server.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      await waitForPort(port).catch((err: Error) => {
        throw new Error(`${err.message}: ${stderr}`);
      });

      // A client without a key is turned away; an agent's key may not read another node's jobs.
      await expect(
        connect({ servers: `nats://127.0.0.1:${port}`, reconnect: false, timeout: 5000 }),
      ).rejects.toThrow(/Authorization/i);
      const nc = await connect({
        servers: `nats://127.0.0.1:${port}`,
        reconnect: false,
        authenticator: nkeyAuthenticator(new TextEncoder().encode(agent.seed)),
      });
      try {
        expect(await checkAuthorizationEnforced(nc)).toMatchObject({ enforced: true, conclusive: true });
      } finally {
        await nc.close();
      }
    } finally {
      if (server && server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((r) => server?.once("exit", r));
        server.kill("SIGINT"); // the packaged unit's ExecStop
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("deploy/systemd and docs/operations.md", () => {
  it("name one install command", () => {
    const files = [
      "deploy/systemd/vantage-agent.service",
      "deploy/systemd/vantage-controller.service",
      "docs/operations.md",
    ];
    const commands = files.map((f) => {
      const found = [...readFileSync(repoFile(f), "utf8").matchAll(/pnpm install[^`\n]*/g)].map((m) =>
        m[0].trim(),
      );
      return [f, [...new Set(found)]];
    });
    // tsx, which the units start the sources with, is a development dependency: --prod=false keeps it.
    expect(commands).toEqual(files.map((f) => [f, ["pnpm install --frozen-lockfile --prod=false"]]));
  });
});

describe("the agent's launch lines", () => {
  it("give Node the same options everywhere the agent is started", () => {
    const options = (line: string | undefined, node: string, preload: string) => {
      const words = (line ?? "").trim().split(/\s+/);
      expect(words[0]).toBe(node);
      const at = words.indexOf("--require");
      expect(words.slice(at, at + 2)).toEqual(["--require", preload]);
      return words.slice(1, at);
    };
    const execStart = (f: string) => /^ExecStart=(.+)$/m.exec(readFileSync(repoFile(f), "utf8"))?.[1];
    expect(
      options(
        execStart("deploy/agent-release/vantage-agent.service"),
        "/usr/bin/node",
        "/opt/vantage-agent/current/threadpool.cjs",
      ),
    ).toEqual(AGENT_NODE_OPTIONS);
    expect(
      options(
        execStart("deploy/systemd/vantage-agent.service"),
        "/usr/bin/node",
        "/opt/vantage/apps/agent/dist/threadpool.cjs",
      ),
    ).toEqual(AGENT_NODE_OPTIONS);
    const dockerfile = readFileSync(repoFile("deploy/docker/agent.Dockerfile"), "utf8");
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.+\])$/m.exec(dockerfile)?.[1] ?? "[]") as string[];
    expect(options(entrypoint.join(" "), "node", "/opt/vantage-agent/threadpool.cjs")).toEqual(
      AGENT_NODE_OPTIONS,
    );
    const install = readFileSync(repoFile("deploy/install-agent.sh"), "utf8");
    expect(install).toContain(
      `$node ${AGENT_NODE_OPTIONS.join(" ")} --require $opt_dir/current/threadpool.cjs`,
    );
    const readme = readFileSync(repoFile("deploy/agent-release/README.md"), "utf8");
    expect(readme).toContain(`node ${AGENT_NODE_OPTIONS.join(" ")} --require /opt/vantage-agent/current/`);
    // `pnpm agent` (the agent from a checkout) and the container docs run the same line.
    const scripts = (
      JSON.parse(readFileSync(repoFile("package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.agent).toContain(
      `node ${AGENT_NODE_OPTIONS.join(" ")} --require ./apps/agent/dist/threadpool.cjs`,
    );
    expect(readFileSync(repoFile("docs/containers.md"), "utf8")).toContain(
      `node ${AGENT_NODE_OPTIONS.join(" ")} --require /opt/vantage-agent/threadpool.cjs`,
    );
  });
});
