import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { processAlive } from "./owner-watch.js";
import { adminUrl } from "./postgres.js";

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

interface Left {
  port: number;
  dir: string;
  child: number;
  database: string;
}

describe("what a test process started, when it is killed before its clean-up", () => {
  it("a PostgreSQL cluster is stopped and removed, a spawned process killed, a test database dropped", async () => {
    // A process that starts a cluster and a child, says which, and is then killed with SIGKILL: no
    // afterAll, no destroy (as a run cut short by Ctrl-C or `timeout` leaves its workers).
    const url = (f: string) => JSON.stringify(fileURLToPath(new URL(f, import.meta.url)));
    const script = `import { spawn } from "node:child_process";
import { startPostgresCluster } from ${url("./pg-cluster.ts")};
import { killWithOwner } from ${url("./owner-watch.ts")};
import { createTestDatabase } from ${url("./postgres.ts")};
const c = await startPostgresCluster();
const db = await createTestDatabase();
const child = spawn("sleep", ["600"], { stdio: "ignore" });
killWithOwner(child);
process.stdout.write(JSON.stringify({ port: c.port, dir: c.dir, child: child.pid, database: db.name }) + "\\n");
setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const left = await new Promise<Left>((resolve, reject) => {
      let out = "";
      owner.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]!) as Left);
      });
      owner.once("exit", (code) => reject(new Error(`the owner exited with ${code} before it started both`)));
    });
    const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    const exists = async () =>
      (await admin`select 1 from pg_database where datname = ${left.database}`).length > 0;
    expect(await accepts(left.port)).toBe(true);
    expect(existsSync(left.dir)).toBe(true);
    expect(processAlive(left.child)).toBe(true);
    expect(await exists()).toBe(true);

    owner.kill("SIGKILL");
    // The watcher looks once a second; an immediate stop takes well under one more.
    const deadline = Date.now() + 20_000;
    while (
      (await accepts(left.port)) ||
      existsSync(left.dir) ||
      processAlive(left.child) ||
      (await exists())
    ) {
      if (Date.now() > deadline) throw new Error("what the owner started outlived it by 20 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await accepts(left.port)).toBe(false);
    expect(existsSync(left.dir)).toBe(false);
    expect(processAlive(left.child)).toBe(false);
    expect(await exists()).toBe(false);
    await admin.end();
  }, 60_000);
});
