import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appArgs, listeningOn, type NatsServer, startNatsServer } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LabAgents, startLabAgents } from "../agents.js";
import { expectedHops } from "../describe.js";
import { repoRoot } from "../lab.js";
import { labAddresses as at } from "../topology.js";
import { useLab } from "./lab-fixture.js";

/**
 * The whole path: a controller on the host, NATS on the host, one agent per client namespace. One Form B
 * traceroute from three nodes must come back as three different hop lists, each the path of its region.
 */
const fx = useLab();
const nodeIds = ["lab-c1", "lab-c2", "lab-c3"];
let nats: NatsServer | undefined;
let agents: LabAgents | undefined;
let controller: ChildProcess | undefined;
let url = "";
const dataDir = mkdtempSync(join(tmpdir(), "vantage-netlab-ctl-"));
let controllerLog = "";

beforeAll(async () => {
  for (const entry of ["apps/agent/src/main.ts", "apps/controller/src/main.ts"]) {
    if (!existsSync(join(repoRoot, entry))) throw new Error(`the lab agents test needs ${entry}`);
  }
  nats = await startNatsServer();
  agents = await startLabAgents(fx.lab, nats.url, {
    env: { VANTAGE_LOG_LEVEL: "warn" },
    args: appArgs("agent"),
  });
  controller = spawn(process.execPath, appArgs("controller"), {
    cwd: repoRoot,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      // Its own port, read from its `listening` line (a port picked here could be taken before it binds).
      PORT: "0",
      NATS_URL: nats.url,
      VANTAGE_DATA_DIR: dataDir,
      VANTAGE_API_FORM: "b",
      VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      // The lab's NATS server has no users (see startLabAgents).
      VANTAGE_ALLOW_OPEN_NATS: "true",
      VANTAGE_LOG_LEVEL: "info",
      VANTAGE_ACCESS_LOG: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  controller.stderr?.on("data", (d: Buffer) => {
    controllerLog = (controllerLog + d.toString()).slice(-4000);
  });
  ({ url } = await listeningOn(controller, { timeoutMs: 60_000 }));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = (await (await fetch(`${url}/v1/nodes`)).json()) as {
      data: { items: { id: string; status: string }[] };
    };
    const online = res.data.items.filter((n) => n.status === "online").map((n) => n.id);
    if (nodeIds.every((id) => online.includes(id))) break;
    const dead = agents?.agents.some((a) => a.process.exitCode !== null);
    if (dead || Date.now() > deadline) {
      const logs = agents?.agents.map((a) => `[${a.nodeId}] ${a.output()}`).join("\n");
      throw new Error(`lab agents not online (online: ${online.join(", ")})\n${logs}\n${controllerLog}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}, 120_000);

afterAll(async () => {
  if (controller && controller.exitCode === null) {
    const exited = new Promise((r) => controller?.once("exit", r));
    controller.kill("SIGTERM");
    await exited;
  }
  await agents?.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("agents inside the lab", () => {
  it("one Form B traceroute from three nodes shows three different paths", async () => {
    const res = await fetch(`${url}/v1/probe/traceroute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ host: at.web4, max_hops: 8, nodes: nodeIds }),
    });
    const body = (await res.json()) as {
      data: {
        status: string;
        results: { node_id: string; success: boolean; hops?: { ip: string | null }[] }[];
      };
    };
    expect(res.status, `${JSON.stringify(body)}\n${controllerLog}`).toBe(200);
    expect(body.data.status).toBe("done");
    expect(body.data.results.map((r) => r.node_id).sort()).toEqual(nodeIds);
    const paths = new Set<string>();
    for (const r of body.data.results) {
      const hops = (r.hops ?? []).map((h) => h.ip);
      expect(r.success, JSON.stringify(r)).toBe(true);
      expect(hops).toEqual(expectedHops(r.node_id.replace("lab-", ""), at.web4, 4));
      paths.add(hops.join(" "));
    }
    expect(paths.size).toBe(3);
  });
});
