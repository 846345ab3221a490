import { type ChildProcess, spawn } from "node:child_process";
import { createAgentCredentials } from "@vantage/nats-auth";
import { type NatsUser, writeSeedFile } from "@vantage/testing";
import { connectNats } from "../../packages/transport/src/nats.js";

const root = new URL("../../", import.meta.url).pathname;

/**
 * The fan-out's physical floor (issue #31 item 2): one process sends a request over a nats-server to
 * `count` responder processes (bench/lib/nats-echo.ts) at once and waits for every answer, as the
 * controller does to its agents, with nothing else: no HTTP, no validation, no node choice, no probe, no
 * storage. `user` is added to the nats-server's users before it starts (it may use `bench.floor.>` and
 * inboxes only); `start` then runs the responders and connects.
 */
export function floorUser(): { user: NatsUser; seed: string } {
  const creds = createAgentCredentials("bench-floor");
  creds.user.permissions = {
    publish: { allow: ["bench.floor.>", "_INBOX.>"] },
    subscribe: { allow: ["bench.floor.>", "_INBOX.>"] },
  };
  return creds;
}

export interface Floor {
  /** One fanned-out request and its answers; resolves to its time, ms. */
  once(): Promise<number>;
  stop(): Promise<void>;
}

export async function startFloor(
  natsUrl: string,
  seed: string,
  dir: string,
  count: number,
  requestBytes = 260,
): Promise<Floor> {
  const seedFile = writeSeedFile(dir, "bench-floor", seed);
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ["--import", "tsx", `${root}bench/lib/nats-echo.ts`], {
      cwd: root,
      env: { ...process.env, NATS_URL: natsUrl, NATS_NKEY_SEED_FILE: seedFile, ECHO_ID: String(i) },
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    children.push(child);
    ready.push(
      new Promise((resolve, reject) => {
        child.once("message", () => resolve());
        child.once("exit", (code) => reject(new Error(`floor responder ${i} exited (${code})`)));
      }),
    );
  }
  await Promise.all(ready);
  const nc = await connectNats({ servers: natsUrl, name: "bench-floor", nkeySeedFile: seedFile });
  const payload = new TextEncoder().encode(JSON.stringify({ pad: "x".repeat(requestBytes - 10) }));
  const subjects = Array.from({ length: count }, (_, i) => `bench.floor.${i}`);
  return {
    async once() {
      const start = performance.now();
      await Promise.all(subjects.map((s) => nc.request(s, payload, { timeout: 5000 })));
      return performance.now() - start;
    },
    async stop() {
      await nc.close();
      for (const child of children) {
        if (child.exitCode === null) {
          const exited = new Promise((r) => child.once("exit", r));
          child.kill("SIGTERM");
          await exited;
        }
      }
    },
  };
}
