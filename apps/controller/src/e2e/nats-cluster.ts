import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freePort,
  killWithOwner,
  type NatsServer,
  type NatsUser,
  natsServerBinary,
  waitForPort,
} from "@vantage/testing";

/**
 * A NATS cluster on loopback for end-to-end tests: `size` nats-servers whose configurations are rendered
 * from the deployment template (deploy/nats/cluster/nats-server.conf) with loopback addresses and random
 * ports, the nkey users in a `users.conf` next to each, as in production. It serves as the `NatsServer`
 * of `startCluster` (cluster.ts): its `url` lists every server.
 */

const template = new URL("../../../../deploy/nats/cluster/nats-server.conf", import.meta.url);

export interface ClusterServer {
  name: string;
  url: string;
  /** Signals the server (SIGTERM by default) and resolves once it has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** The names of the clients connected to this server now (its monitoring endpoint, `/connz`). */
  clientNames(): Promise<string[]>;
}

export interface NatsCluster extends NatsServer {
  servers: ClusterServer[];
  /** Every server's URL, comma-separated, server `first` first: a client's NATS_URL with its preferred server. */
  urlsFrom(first: number): string;
}

interface Ports {
  client: number;
  route: number;
  monitor: number;
}

/** The deployment template with one server's names and ports; every line it changes must be there. */
export function renderClusterConfig(
  text: string,
  self: { name: string; ports: Ports },
  routePorts: readonly number[],
  routePassword: string,
): string {
  const swap = (from: RegExp, to: string | ((...m: string[]) => string), count = 1) => {
    const found = text.match(new RegExp(from.source, "gm"))?.length ?? 0;
    if (found !== count) throw new Error(`cluster template: ${from} found ${found} times, not ${count}`);
    text = text.replace(new RegExp(from.source, "gm"), to as string);
  };
  swap(/^server_name: nats-1$/, `server_name: ${self.name}`);
  swap(/^host: 0\.0\.0\.0$/, "host: 127.0.0.1");
  swap(/^port: 4222$/, `port: ${self.ports.client}`);
  swap(/^# http: 127\.0\.0\.1:8222$/, `http: 127.0.0.1:${self.ports.monitor}`);
  swap(/^ {2}host: 0\.0\.0\.0$/, "  host: 127.0.0.1");
  swap(/^ {2}port: 6222$/, `  port: ${self.ports.route}`);
  swap(/@nats-(\d)\.example\.net:6222$/, (_, n) => `@127.0.0.1:${routePorts[Number(n) - 1]}`, 3);
  swap(/change-me-route-password/, routePassword, 4);
  return text;
}

/**
 * Ports come from `freePort()`, which closes its socket before nats-server binds it, so another process
 * on the machine can take one in between; a cluster that fails to bind starts again on fresh ports.
 */
export async function startNatsCluster(opts: { users: NatsUser[] }): Promise<NatsCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNatsClusterOnce(opts);
    } catch (err) {
      if (attempt >= 4 || !/address already in use/.test(String(err))) throw err;
    }
  }
}

async function startNatsClusterOnce(opts: { users: NatsUser[] }): Promise<NatsCluster> {
  const size = 3; // the template's routes name three servers
  const dir = mkdtempSync(join(tmpdir(), "vantage-nats-cluster-"));
  const text = readFileSync(template, "utf8");
  const routePassword = randomBytes(12).toString("hex");
  const ports: Ports[] = [];
  for (let i = 0; i < size; i++)
    ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
  const routePorts = ports.map((p) => p.route);

  const servers = ports.map((p, i) => {
    const name = `nats-${i + 1}`;
    const serverDir = join(dir, name);
    mkdirSync(serverDir);
    const configPath = join(serverDir, "nats-server.conf");
    writeFileSync(configPath, renderClusterConfig(text, { name, ports: p }, routePorts, routePassword));
    writeFileSync(join(serverDir, "users.conf"), `users: ${JSON.stringify(opts.users, null, 2)}\n`);
    let child: ChildProcess | undefined;
    const monitor = (path: string) =>
      fetch(`http://127.0.0.1:${p.monitor}${path}`).then((r) => r.json() as Promise<Record<string, unknown>>);
    return {
      name,
      url: `nats://127.0.0.1:${p.client}`,
      port: p.client,
      configPath,
      async start() {
        // On a restart the same ports are bound again; one taken meanwhile is usually freed soon.
        for (let attempt = 1; ; attempt++) {
          try {
            child = await spawnServer(configPath, p.client);
            return;
          } catch (err) {
            if (attempt >= 3 || !/address already in use/.test(String(err))) throw err;
            await new Promise((r) => setTimeout(r, 300));
          }
        }
      },
      async kill(signal: NodeJS.Signals = "SIGTERM") {
        const c = child;
        if (!c || c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((r) => c.once("exit", r));
        c.kill(signal);
        await exited;
      },
      async clientNames() {
        const connz = (await monitor("/connz?limit=1000")) as { connections?: { name?: string }[] };
        return (connz.connections ?? []).map((c) => c.name ?? "");
      },
      async routes() {
        return Number((await monitor("/routez")).num_routes ?? 0);
      },
    };
  });

  const startAll = async () => {
    await Promise.all(servers.map((s) => s.start()));
    // Clients are started once every server has a route to every other (routes are retried every second).
    const deadline = Date.now() + 20_000;
    for (;;) {
      const routes = await Promise.all(servers.map((s) => s.routes()));
      if (routes.every((n) => n === size - 1)) return;
      if (Date.now() > deadline) throw new Error(`NATS cluster not formed after 20 s: routes ${routes}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const killAll = () => Promise.all(servers.map((s) => s.kill()));
  try {
    await startAll();
  } catch (err) {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const urlsFrom = (first: number) =>
    [...servers.slice(first), ...servers.slice(0, first)].map((s) => s.url).join(",");
  return {
    url: urlsFrom(0),
    port: servers[0]!.port,
    configPath: servers[0]!.configPath,
    servers,
    urlsFrom,
    async restart() {
      await killAll();
      await startAll();
    },
    async stop() {
      await killAll();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function spawnServer(configPath: string, port: number): Promise<ChildProcess> {
  const child = spawn(natsServerBinary(), ["-c", configPath], { stdio: ["ignore", "ignore", "pipe"] });
  killWithOwner(child);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (err) =>
      reject(
        new Error(`cannot start nats-server (${err.message}); pnpm test installs it, or set NATS_SERVER_BIN`),
      ),
    );
    child.once("exit", (code) => reject(new Error(`nats-server exited with ${code}: ${stderr}`)));
  });
  failed.catch(() => {}); // after start-up an exit is expected (kill, stop)
  await Promise.race([waitForPort(port), failed]);
  return child;
}
