import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import type { Lab } from "./lab.js";
import { serviceScript, startInNamespace } from "./services/launch.js";
import { joinSockets } from "./services/pipe.js";
import { labNodes } from "./topology.js";

/** Port the relay listens on inside every client namespace (its loopback is private to the namespace). */
export const labNatsPort = 4222;

export interface LabAgent {
  nodeId: string;
  client: string;
  process: ChildProcess;
  /** The agent's last few kB of stdout and stderr (for failure messages). */
  output(): string;
}

export interface LabAgents {
  agents: LabAgent[];
  stop(): Promise<void>;
}

export interface LabAgentOptions {
  clients?: string[];
  /** Extra environment for every agent (e.g. `VANTAGE_LOG_LEVEL`). */
  env?: Record<string, string>;
  /** Node id of a client's agent (default `lab-<client>`). */
  nodeId?: (client: string) => string;
  /**
   * Node's arguments for each agent, paths absolute or from the repository's root (default the sources
   * through tsx, with the thread-pool preload; the suite passes the bundles it built: @vantage/testing's
   * appArgs).
   */
  args?: string[];
}

/** An agent from its TypeScript sources, as `pnpm netlab:up` starts them. */
const sourceArgs = [
  "--require",
  "./apps/agent/src/threadpool.cjs",
  "--import",
  "tsx",
  "apps/agent/src/main.ts",
];

/** Host side of the NATS path: a unix socket in the lab directory piped to the NATS server's TCP port. */
function startHostRelay(lab: Lab, natsUrl: string): Promise<{ path: string; server: Server }> {
  const url = new URL(natsUrl.replace(/^nats:/, "http:"));
  const port = Number(url.port || 4222);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const path = join(lab.dir, "nats.sock");
  rmSync(path, { force: true });
  const server = createServer((inbound) => {
    const outbound = connect(port, host);
    joinSockets(inbound, outbound);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve({ path, server }));
  });
}

/**
 * Starts one agent per client namespace, each a separate `ip netns exec <ns> node --import tsx
 * apps/agent/src/main.ts` process probing from its own place in the lab, all connected to `natsUrl` (a
 * server on the host) through the unix-socket relay. Private targets are allowed: the lab is all
 * documentation addresses. So is a NATS server without authorization (`VANTAGE_ALLOW_OPEN_NATS`): the lab
 * tests probing, not credentials (apps/agent's tests cover those).
 */
export async function startLabAgents(
  lab: Lab,
  natsUrl: string,
  opts: LabAgentOptions = {},
): Promise<LabAgents> {
  const clients = opts.clients ?? lab.clients;
  const hostRelay = await startHostRelay(lab, natsUrl);
  const children: ChildProcess[] = [];
  const agents: LabAgent[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once("exit", () => resolve());
            c.kill("SIGTERM");
            setTimeout(() => c.kill("SIGKILL"), 3000).unref();
          }),
      ),
    );
    await new Promise<void>((resolve) => hostRelay.server.close(() => resolve()));
  };
  try {
    for (const client of clients) {
      const relay = await startInNamespace(lab, client, serviceScript("relay.ts"), [
        String(labNatsPort),
        hostRelay.path,
      ]);
      children.push(relay);
      const spec = labNodes.find((n) => n.name === client);
      const nodeId = opts.nodeId?.(client) ?? `lab-${client}`;
      const agent = lab.spawn(client, process.execPath, opts.args ?? sourceArgs, {
        ...process.env,
        VANTAGE_NODE_ID: nodeId,
        VANTAGE_NODE_NAME: `lab ${client} (${spec?.region ?? "lab"})`,
        VANTAGE_NODE_COUNTRY: spec?.country ?? "ZZ",
        VANTAGE_NODE_REGION: spec?.region ?? "lab",
        VANTAGE_NODE_PROVIDER: "netlab",
        NATS_URL: `nats://127.0.0.1:${labNatsPort}`,
        VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
        VANTAGE_HEARTBEAT_MS: "1000",
        // The lab's agents carry no credentials and the lab's NATS server has no users: without this an
        // agent refuses a server that does not enforce permissions (exit 2).
        VANTAGE_ALLOW_OPEN_NATS: "true",
        ...opts.env,
      });
      // Keep only a tail: enough to explain a failure, never a full pipe blocking a chatty agent.
      let tail = "";
      const keep = (d: Buffer): void => {
        tail = (tail + d.toString()).slice(-4000);
      };
      agent.stdout?.on("data", keep);
      agent.stderr?.on("data", keep);
      children.push(agent);
      agents.push({ nodeId, client, process: agent, output: () => tail });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { agents, stop };
}
