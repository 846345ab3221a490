import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsUser } from "@vantage/nats-auth";
import { killWithOwner } from "./owner-watch.js";
import { freePort, waitForPort } from "./ports.js";

export type { NatsPermissions, NatsUser } from "@vantage/nats-auth";

export interface NatsServer {
  url: string;
  port: number;
  configPath: string;
  /** Kills the server and starts it again on the same port and configuration. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Finds the nats-server binary; a missing one fails loudly (pnpm test installs it). */
export function natsServerBinary(): string {
  return process.env.NATS_SERVER_BIN ?? "nats-server";
}

/**
 * Renders a nats-server configuration: loopback, given port, optional nkey users, and JetStream when given
 * a directory to store it in.
 */
export function renderNatsConfig(port: number, users: NatsUser[] | undefined, jetstreamDir?: string): string {
  const lines = ["host: 127.0.0.1", `port: ${port}`, "max_payload: 1MB"];
  if (jetstreamDir) lines.push(`jetstream: { store_dir: ${JSON.stringify(jetstreamDir)} }`);
  if (users && users.length > 0) {
    lines.push(`authorization: { users: ${JSON.stringify(users, null, 2)} }`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Spawns a nats-server on a random loopback port; `stop()` kills it and removes its files, `restart()`
 * kills it and starts a new one on the same port and configuration (clients see a server restart; with
 * `jetstream`, its streams are kept on disk across the restart).
 */
export async function startNatsServer(
  opts: { users?: NatsUser[]; jetstream?: boolean } = {},
): Promise<NatsServer> {
  const dir = mkdtempSync(join(tmpdir(), "vantage-nats-"));
  const configPath = join(dir, "nats.conf");
  // `freePort()` closes its socket before nats-server binds the port, so another process can take it in
  // between: start again on a fresh port then.
  let port = 0;
  let child: ChildProcess;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    writeFileSync(
      configPath,
      renderNatsConfig(port, opts.users, opts.jetstream ? join(dir, "jetstream") : undefined),
    );
    try {
      child = await spawnServer(configPath, port);
      break;
    } catch (err) {
      if (attempt >= 4 || !/address already in use/.test(String(err))) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    configPath,
    async restart() {
      await kill();
      child = await spawnServer(configPath, port);
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function spawnServer(configPath: string, port: number): Promise<ChildProcess> {
  const child: ChildProcess = spawn(natsServerBinary(), ["-c", configPath], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  killWithOwner(child);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const spawnError = new Promise<never>((_, reject) => {
    child.once("error", (err) =>
      reject(
        new Error(`cannot start nats-server (${err.message}); pnpm test installs it, or set NATS_SERVER_BIN`),
      ),
    );
    child.once("exit", (code) => reject(new Error(`nats-server exited with ${code}: ${stderr}`)));
  });
  spawnError.catch(() => {}); // after start-up an exit is expected (stop, restart)
  await Promise.race([waitForPort(port), spawnError]);
  return child;
}
