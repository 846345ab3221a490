import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { listeningOn, type logLines } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The built controller (apps/controller/build.mjs, `pnpm build`) as operators run it: plain Node, no
 * TypeScript loader, from the checkout. Each request below reaches a file the bundle must find at run time
 * outside itself: the bcrypt worker beside the bundle, Scalar's browser bundle and the IP data in
 * node_modules, the shipped data of @vantage/lookups, the local agent's chunk and raw-socket.
 */
const root = fileURLToPath(new URL("../../../", import.meta.url));
const dist = join(root, "apps/controller/dist");

/** This machine's environment without the variables that would take the controller out of embedded mode. */
function embeddedEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ["DATABASE_URL", "NATS_URL", "NATS_NKEY_SEED_FILE", "NATS_CREDS_FILE"]) delete env[name];
  return env;
}

function node(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, args, {
    cwd: root,
    env: embeddedEnv(env),
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("the built controller", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vantage-built-"));
  const env = { VANTAGE_DATA_DIR: dataDir, VANTAGE_LOG_LEVEL: "warn" };
  let child: ChildProcess;
  let url: string;
  let log: ReturnType<typeof logLines>;
  let stderr = "";

  beforeAll(async () => {
    const build = node(["scripts/build.mjs", "--if-stale", "controller"], {});
    expect(build.status, build.stderr).toBe(0);
    // The port is the controller's own pick (PORT=0), read from its `listening` line (at level info).
    child = spawn(process.execPath, [join(dist, "main.mjs"), "--embedded"], {
      cwd: root,
      env: embeddedEnv({
        ...env,
        HOST: "127.0.0.1",
        PORT: "0",
        VANTAGE_LOG_LEVEL: "info",
        VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const listening = await listeningOn(child, { timeoutMs: 30_000 }).catch((err: Error) => {
      throw new Error(`${err.message}: ${stderr}`);
    });
    url = listening.url;
    log = listening.log;
  });

  afterAll(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers /healthz, its OpenAPI document and the docs page's script", async () => {
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const doc = (await (await fetch(`${url}/v1/openapi.json`)).json()) as { openapi: string };
    expect(doc.openapi).toBe("3.1.0");
    const script = await fetch(`${url}/docs/standalone.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });

  it("hashes a password in its worker threads, answers MCP, looks up an IP and probes from its local node", async () => {
    const registered = await fetch(`${url}/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "built@example.com", password: "correct horse battery" }),
    });
    expect(registered.status).toBe(201);
    // The MCP endpoint, through the SDK bundled into the controller (build.mjs's bundledPackages).
    const { access_token } = ((await registered.json()) as { data: { access_token: string } }).data;
    const key = await fetch(`${url}/v1/account/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ name: "mcp" }),
    });
    expect(key.status).toBe(201);
    const mcp = await fetch(`${url}/v1/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${((await key.json()) as { data: { key: string } }).data.key}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toMatch(/"tools":\[\{"name":/);
    const ip = (await (await fetch(`${url}/v1/info/ip?ip=8.8.8.8`)).json()) as { data: { asn: string } };
    expect(ip.data.asn).toBe("AS15169");
    const port = new URL(url).port;
    const probe = await fetch(`${url}/v1/probe/tcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ host: "127.0.0.1", port: Number(port) }),
    });
    const result = (await probe.json()) as { data: { results: { node_id: string; success: boolean }[] } };
    expect(result.data.results).toEqual([expect.objectContaining({ node_id: "local", success: true })]);
  });

  it("stops on SIGTERM with exit code 0, having logged no error", async () => {
    const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    const errors = [
      ...log.lines,
      ...stderr
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    ].filter((line) => Number(line.level) >= 50);
    expect(errors).toEqual([]);
  });

  it("runs the operator commands built beside it", () => {
    const migrate = node([join(dist, "migrate.mjs")], env);
    expect(migrate.status, migrate.stderr).toBe(0);
    const plan = node([join(dist, "account-plan.mjs"), "built@example.com", "pro"], env);
    expect(plan.status, plan.stderr).toBe(0);
    // Loads and answers a usage error before it opens any database (each open of PGlite costs seconds).
    const rotate = node([join(dist, "secrets-rotate.mjs"), "--batch-size", "0"], env);
    expect(rotate.status).toBe(2);
    expect(rotate.stderr).toContain("usage: pnpm secrets:rotate");
    const seeds = join(dataDir, "nats");
    const agent = node([join(dist, "add-agent.mjs"), "fra1", "--country", "DE", "--out-dir", seeds], env);
    expect(agent.status, agent.stderr).toBe(0);
    expect(agent.stdout).toContain("VANTAGE_NODE_ID=fra1");
  });
});
