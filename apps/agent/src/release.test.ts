import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { connect, type NatsConnection, nkeyAuthenticator } from "@nats-io/transport-node";
import { createAgentCredentials, createControllerCredentials, renderAgentEnv } from "@vantage/nats-auth";
import { type Heartbeat, heartbeatSchema, jobMessageSchema, jobReplySchema } from "@vantage/protocol";
import { type NatsServer, startNatsServer } from "@vantage/testing";
import { type ControllerTransport, natsControllerTransport } from "@vantage/transport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_NODE_OPTIONS, job, linesAtLeast, until } from "./testing/agent-process.js";

/**
 * The operator's path end to end: `pnpm release:agent`'s tarball, unpacked, installed by its own
 * install-agent.sh into a throw-away root (twice: the second run changes nothing), the INSTALLED bundle
 * started as its unit would start it and serving real jobs over a real nats-server, then uninstalled.
 * install-agent.sh runs as root (it chowns, and creates a throw-away system user); CI runs as root.
 */
if (process.getuid?.() !== 0) {
  throw new Error(
    "release.test.ts must run as root: install-agent.sh creates a system user and installs root-owned files " +
      "(CI runs as root); run it with sudo",
  );
}

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const { version } = JSON.parse(readFileSync(join(repoRoot, "apps/agent/package.json"), "utf8")) as {
  version: string;
};
const creds = { agent: createAgentCredentials("rel-1"), controller: createControllerCredentials() };
const user = `vantage-test-${Math.random().toString(36).slice(2, 8)}`;

let dir: string;
let prefix: string;
let releaseDir: string;
let nats: NatsServer;
let nc: NatsConnection;
let controller: ControllerTransport;
let tcp: TcpServer;
let agent: ChildProcess | undefined;
let output = "";
const heartbeats: Heartbeat[] = [];

const userExists = (name: string) => spawnSync("getent", ["passwd", name]).status === 0;

async function install(...args: string[]): Promise<string> {
  const script = join(releaseDir, "install-agent.sh");
  // The Node running this test built the release (its raw.node's ABI): the unit runs that one.
  const node = ["--node", process.execPath];
  const res = await run(
    "bash",
    [script, "--prefix", prefix, "--no-systemd", "--user", user, ...node, ...args],
    {
      timeout: 30_000,
    },
  ).catch((err: { stderr?: string; stdout?: string; message: string }) => {
    throw new Error(
      `install-agent.sh ${args.join(" ")} failed: ${err.stderr ?? ""}${err.stdout ?? ""}${err.message}`,
    );
  });
  return res.stdout;
}

/** Every path under the prefix with its type, mode, owner, mtime and content hash (or link target). */
function snapshot(base: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      const key = p.slice(base.length);
      if (st.isSymbolicLink()) out[key] = `link ${readlinkSync(p)} ${st.mtimeMs}`;
      else if (st.isDirectory()) {
        out[key] = `dir ${(st.mode & 0o7777).toString(8)} ${st.uid}`;
        walk(p);
      } else {
        const hash = createHash("sha256").update(readFileSync(p)).digest("hex");
        out[key] = `file ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${st.mtimeMs} ${hash}`;
      }
    }
  };
  walk(base);
  return out;
}

/** NAME=value lines of an EnvironmentFile, double quotes removed (as systemd and sh read them). */
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!.replace(/^"(.*)"$/, "$1");
  }
  return env;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vantage-release-test-"));
  prefix = join(dir, "root");
  await run(process.execPath, [join(repoRoot, "scripts/release-agent.mjs"), "--out-dir", join(dir, "out")], {
    cwd: repoRoot,
    timeout: 60_000,
  });
  const tarball = join(dir, "out", `vantage-agent-${version}-${process.platform}-${process.arch}.tar.gz`);
  await run("tar", ["-xzf", tarball, "-C", dir]);
  releaseDir = join(dir, `vantage-agent-${version}`);

  nats = await startNatsServer({ users: [creds.agent.user, creds.controller.user] });
  nc = await connect({
    servers: nats.url,
    name: "release-test-controller",
    authenticator: nkeyAuthenticator(new TextEncoder().encode(creds.controller.seed)),
    reconnect: false,
  });
  controller = natsControllerTransport(nc, false);
  controller.subscribeHeartbeats((nodeId, message) => {
    if (nodeId === "rel-1") heartbeats.push(heartbeatSchema.parse(message));
  });
  await nc.flush();
  tcp = createTcpServer((s) => s.end());
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));

  // What the operator copies from `pnpm agent:add rel-1 …`: the seed file and the environment block.
  writeFileSync(join(dir, "agent-rel-1.nk"), `${creds.agent.seed}\n`, { mode: 0o600 });
  const env = renderAgentEnv({
    nodeId: "rel-1",
    name: "Release Test",
    country: "DE",
    region: "eu-central",
    provider: "test",
    natsUrl: nats.url,
    seedFile: "/etc/vantage/agent.nk",
  });
  // Loopback targets and quick heartbeats for the test.
  writeFileSync(
    join(dir, "rel-1.env"),
    `${env}VANTAGE_ALLOW_PRIVATE_TARGETS=true\nVANTAGE_HEARTBEAT_MS=500\n`,
  );
});

afterAll(async () => {
  if (agent && agent.exitCode === null && agent.signalCode === null) agent.kill("SIGKILL");
  await controller?.close();
  if (nc && !nc.isClosed()) await nc.close();
  await nats?.stop();
  tcp?.close();
  if (userExists(user)) spawnSync("userdel", [user]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the agent's release tarball", () => {
  it("bundles zod/mini, not full zod, with English messages only", () => {
    const bundle = readFileSync(join(releaseDir, "vantage-agent.mjs"), "utf8");
    expect(bundle).toContain('"ZodMiniObject"');
    expect(bundle).not.toContain('"ZodObject"');
    expect(bundle).toContain("Too small: expected");
    expect(bundle).not.toContain("Zu klein");
  });

  it("holds the bundle, raw.node, the preload, the unit, the install script, README and notices", () => {
    expect(readdirSync(releaseDir).sort()).toEqual([
      "LICENSE",
      "README.md",
      "THIRD-PARTY-NOTICES.md",
      "build-info.json",
      "install-agent.sh",
      "raw.node",
      "threadpool.cjs",
      "vantage-agent.mjs",
      "vantage-agent.service",
    ]);
    const info = JSON.parse(readFileSync(join(releaseDir, "build-info.json"), "utf8"));
    expect(info).toMatchObject({ version, node_abi: process.versions.modules });
    expect(readFileSync(join(releaseDir, "README.md"), "utf8")).toContain(
      `Node ${process.versions.node.split(".")[0]}.x only`,
    );
    const unit = readFileSync(join(releaseDir, "vantage-agent.service"), "utf8");
    expect(unit).toContain("AmbientCapabilities=CAP_NET_RAW");
    expect(unit).toContain(
      "ExecStart=/usr/bin/node --optimize-for-size --no-maglev --no-opt --require /opt/vantage-agent/current/threadpool.cjs /opt/vantage-agent/current/vantage-agent.mjs",
    );
  });

  it("installs into a throw-away root; a second run changes nothing", async () => {
    const first = await install("--env", join(dir, "rel-1.env"), "--seed", join(dir, "agent-rel-1.nk"));
    expect(first).toContain(`installed release ${version}`);
    expect(userExists(user)).toBe(true);

    expect(readlinkSync(join(prefix, "opt/vantage-agent/current"))).toBe(version);
    const seed = lstatSync(join(prefix, "etc/vantage/agent.nk"));
    expect({ mode: (seed.mode & 0o777).toString(8), uid: seed.uid }).toEqual({ mode: "600", uid: 0 });
    expect(readFileSync(join(prefix, "etc/vantage/agent.nk"), "utf8").trim()).toBe(creds.agent.seed);
    expect(readEnvFile(join(prefix, "etc/vantage/agent.env"))).toMatchObject({
      VANTAGE_NODE_ID: "rel-1",
      VANTAGE_NODE_NAME: "Release Test",
      NATS_URL: nats.url,
      NATS_NKEY_SEED_FILE: join(prefix, "etc/vantage/agent.nk"),
    });
    const unit = readFileSync(join(prefix, "etc/systemd/system/vantage-agent.service"), "utf8");
    expect(unit).toContain(`User=${user}`);
    expect(unit).toContain("AmbientCapabilities=CAP_NET_RAW");
    expect(unit).toContain(`EnvironmentFile=${prefix}/etc/vantage/agent.env`);

    const before = snapshot(prefix);
    const second = await install("--env", join(dir, "rel-1.env"), "--seed", join(dir, "agent-rel-1.nk"));
    expect(second).toContain("nothing changed");
    // And once more without the files: the installed environment and seed are kept.
    expect(await install()).toContain("nothing changed");
    expect(snapshot(prefix)).toEqual(before);
  });

  it("the installed agent, started as its unit starts it, joins NATS and serves tcp and ping jobs", async () => {
    const unit = readFileSync(join(prefix, "etc/systemd/system/vantage-agent.service"), "utf8");
    const execStart = /^ExecStart=(.+)$/m.exec(unit)?.[1]?.split(" ") ?? [];
    expect(execStart.slice(1)).toEqual([
      ...AGENT_NODE_OPTIONS,
      "--require",
      `${prefix}/opt/vantage-agent/current/threadpool.cjs`,
      `${prefix}/opt/vantage-agent/current/vantage-agent.mjs`,
    ]);
    // The unit runs the Node it found (/usr/bin/node); this test runs the one it runs on, the tarball's.
    agent = spawn(process.execPath, execStart.slice(1), {
      cwd: join(prefix, "opt/vantage-agent/current"),
      env: { PATH: process.env.PATH ?? "", ...readEnvFile(join(prefix, "etc/vantage/agent.env")) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    agent.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    agent.stderr?.on("data", (d: Buffer) => (output += d.toString()));

    const hb = await until("the installed agent's first heartbeat", () => heartbeats[0], 20_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}; agent output:\n${output}`);
      },
    );
    expect(hb).toMatchObject({
      node: { id: "rel-1", name: "Release Test", country: "DE" },
      version,
      draining: false,
    });
    // Run as root here: raw sockets are allowed, so ping is offered and raw.node beside the bundle is used.
    expect(hb.capabilities).toEqual(expect.arrayContaining(["tcp", "ping", "traceroute"]));

    const port = (tcp.address() as { port: number }).port;
    const tcpReply = jobReplySchema.parse(
      await controller.request(
        "rel-1",
        job({ job_id: "rel-tcp", spec: { type: "tcp", params: { host: "127.0.0.1", port } } }),
        8000,
      ),
    );
    expect(tcpReply, output).toMatchObject({ status: "done", outcome: { success: true, detail: { port } } });
    const pingReply = jobReplySchema.parse(
      await controller.request(
        "rel-1",
        job({
          job_id: "rel-ping",
          spec: { type: "ping", params: { host: "127.0.0.1", count: 2, interval_ms: 50, timeout_ms: 2000 } },
        }),
        8000,
      ),
    );
    expect(pingReply, output).toMatchObject({
      status: "done",
      outcome: { success: true, detail: { packets_sent: 2, packets_received: 2 } },
    });

    // The bundle validates with zod/mini (build.mjs): the same refusals, in the same words, as full zod here.
    for (const [jobId, params] of [
      ["rel-bad-port", { host: "127.0.0.1", port: 0 }],
      ["rel-bad-host", { host: "", port: 80, timeout_ms: 99 }],
      ["rel-bad-type", { host: "127.0.0.1", port: "80" }],
    ] as const) {
      const bad = job({ job_id: jobId, spec: { type: "tcp", params } });
      const issue = jobMessageSchema.safeParse(bad).error?.issues[0];
      expect(issue).toBeDefined();
      const refused = jobReplySchema.parse(await controller.request("rel-1", bad, 8000));
      expect(refused, output).toEqual({
        v: bad.v,
        job_id: jobId,
        status: "refused",
        error: { code: "invalid_job", message: `${issue?.path.join(".")}: ${issue?.message}` },
      });
    }

    const exited = new Promise<number | null>((r) => agent?.once("exit", (c) => r(c)));
    agent.kill("SIGTERM");
    expect(await exited, output).toBe(0);
    expect(output).toContain('"uv_threadpool_size":68');
    // No warning but the three refusals above.
    const warnings = linesAtLeast(output, 40);
    expect(warnings.filter((l) => l.msg !== "refused invalid job")).toEqual([]);
    expect(warnings.map((l) => l.job_id)).toEqual(["rel-bad-port", "rel-bad-host", "rel-bad-type"]);
  });

  it("started without the preload, it says whether its own sizing of the thread pool came in time", async () => {
    const child = spawn(process.execPath, [join(prefix, "opt/vantage-agent/current/vantage-agent.mjs")], {
      env: { PATH: process.env.PATH ?? "", ...readEnvFile(join(prefix, "etc/vantage/agent.env")) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    await until(
      "the agent serving",
      () => (log.includes("agent serving jobs") ? true : undefined),
      20_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; agent output:\n${log}`);
    });
    child.kill("SIGTERM");
    expect(await exited, log).toBe(0);
    // Node 20's module loader starts libuv's pool before an ES module's first line: only the preload is in
    // time there. Node 24 reads the entry synchronously, so the bundle's own first lines are.
    if (Number(process.versions.node.split(".")[0]) < 24) {
      expect(log).toContain('"uv_threadpool_size":4');
      expect(log).toContain("thread pool left at 4");
    } else {
      expect(log).toContain('"uv_threadpool_size":68');
      expect(log).not.toContain("thread pool left at 4");
    }
  });

  it("a newer release upgrades in place: `current` switches, the previous stays, configuration is kept", async () => {
    const next = `${version}-next`;
    const nextDir = join(dir, `vantage-agent-${next}`);
    await run("cp", ["-r", releaseDir, nextDir]);
    const infoFile = join(nextDir, "build-info.json");
    writeFileSync(infoFile, JSON.stringify({ ...JSON.parse(readFileSync(infoFile, "utf8")), version: next }));
    const config = () => [
      readFileSync(join(prefix, "etc/vantage/agent.env"), "utf8"),
      readFileSync(join(prefix, "etc/vantage/agent.nk"), "utf8"),
    ];
    const before = config();

    const out = await install("--from", nextDir);
    expect(out).toContain(`switched ${prefix}/opt/vantage-agent/current to ${next} (was ${version})`);
    expect(readlinkSync(join(prefix, "opt/vantage-agent/current"))).toBe(next);
    expect(readdirSync(join(prefix, "opt/vantage-agent")).sort()).toEqual([version, next, "current"].sort());
    expect(config()).toEqual(before);
  });

  it("--uninstall removes the unit, the files, the environment, the seed and the user", async () => {
    const script = join(prefix, "opt/vantage-agent/current/install-agent.sh");
    await run("bash", [script, "--uninstall", "--prefix", prefix, "--no-systemd", "--user", user], {
      timeout: 30_000,
    });
    expect(snapshot(prefix)).toEqual({});
    expect(userExists(user)).toBe(false);
  });
});
