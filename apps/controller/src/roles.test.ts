import { connect } from "node:net";
import { createControllerCredentials } from "@vantage/nats-auth";
import {
  createTestDatabase,
  listeningOn,
  logLines,
  startNatsServer,
  type TestDatabase,
} from "@vantage/testing";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectDb, type Db, migrate } from "./db/connect.js";
import { exitOf, listeningPorts, seedFile, startController } from "./testing/controller-process.js";
import { startSmtp } from "./testing/smtp-server.js";

/**
 * A controller runs exactly the roles it is given (`VANTAGE_ROLES`), as a real process on a real database:
 * each role's effect is observed from outside (a row swept, a mail received, a node registered, a port
 * open or not), and so is the absence of every role it was not given.
 */

/** Whether anything accepts TCP connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("controller roles (VANTAGE_ROLES)", () => {
  let pg: TestDatabase;
  let db: Db;
  const running: { kill(signal: string): void; exited: Promise<{ code: number | null }> }[] = [];

  beforeAll(async () => {
    pg = await createTestDatabase();
    db = await connectDb({ databaseUrl: pg.url, dataDir: "unused", maxConnections: 2 });
    await migrate(db);
  });
  afterEach(async () => {
    for (const c of running.splice(0)) {
      c.kill("SIGTERM");
      expect((await c.exited).code).toBe(0);
    }
  });
  afterAll(async () => {
    await db.close();
    await pg.drop();
  });

  /**
   * A controller with only `roles`, on the shared database and the in-process transport (no NATS). With the
   * api role, `port` is the one it picked (PORT=0) and named in its `listening` line.
   */
  async function controllerWith(roles: string, env: Record<string, string> = {}) {
    const child = startController({
      DATABASE_URL: pg.url,
      VANTAGE_ROLES: roles,
      PORT: "0",
      VANTAGE_LOG_LEVEL: "info",
      VANTAGE_ACCESS_LOG: "false",
      ...env,
    });
    const exited = exitOf(child);
    running.push({ kill: (s) => child.kill(s as NodeJS.Signals), exited });
    const { port, log } = await listeningOn(child, { serves: roles.split(",").includes("api") });
    const started = await log.waitFor((l) => l.msg === "controller running");
    return { port, child, log, started };
  }

  /** Whether the controller's log says it listens on an API port. */
  const saysListening = (log: ReturnType<typeof logLines>) => log.lines.some((l) => l.msg === "listening");

  it("scheduler only: sweeps abandoned probe tasks and opens no port", async () => {
    const id = `task_roles${Date.now().toString(36)}`;
    await db.kysely
      .insertInto("probe_tasks")
      .values({
        id,
        type: "tcp",
        target: "192.0.2.1:80",
        spec: JSON.stringify({ type: "tcp", params: { host: "192.0.2.1", port: 80 } }),
        status: "running",
        node_ids: JSON.stringify(["gone"]),
        owner_id: null,
      })
      .execute();
    await sql`update probe_tasks set created_at = now() - interval '11 minutes' where id = ${id}`.execute(
      db.kysely,
    );

    const { child, log, started } = await controllerWith("scheduler");
    expect(started.roles).toEqual(["scheduler"]);
    const status = await until(async () => {
      const row = await db.kysely
        .selectFrom("probe_tasks")
        .select("status")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      return row.status === "failed" ? row.status : undefined;
    });
    expect(status).toBe("failed");
    expect(listeningPorts(child.pid!)).toEqual([]);
    expect(saysListening(log)).toBe(false);
  });

  it("notifier only: delivers queued mail over SMTP and opens no port", async () => {
    const smtp = await startSmtp();
    try {
      const to = `roles-${Date.now()}@example.com`;
      await sql`
        insert into delivery_outbox (id, channel, destination, payload)
        values (${`dlv_roles${Date.now().toString(36)}`}, 'email', ${to},
                cast(cast(${JSON.stringify({ subject: "Roles test", text: "hello" })} as text) as jsonb))`.execute(
        db.kysely,
      );
      const { child, log, started } = await controllerWith("notifier", { SMTP_URL: smtp.url });
      expect(started.roles).toEqual(["notifier"]);
      const message = await until(async () => smtp.inbox.find((m) => m.to.includes(to)));
      expect(message.raw).toContain("Subject: Roles test");
      expect(listeningPorts(child.pid!)).toEqual([]);
      expect(saysListening(log)).toBe(false);
    } finally {
      await smtp.stop();
    }
  });

  it("presence only: the embedded node's heartbeats reach the nodes table, and no port opens", async () => {
    await db.kysely.deleteFrom("nodes").where("id", "=", "local").execute();
    const { child, log, started } = await controllerWith("presence");
    expect(started.roles).toEqual(["presence"]);
    const node = await until(() =>
      db.kysely.selectFrom("nodes").select(["id", "name"]).where("id", "=", "local").executeTakeFirst(),
    );
    expect(node).toEqual({ id: "local", name: "Local node" });
    expect(listeningPorts(child.pid!)).toEqual([]);
    expect(saysListening(log)).toBe(false);
  });

  it("api only: serves HTTP on its port, knows nodes from their heartbeats, and neither sends mail nor registers nodes", async () => {
    await db.kysely.deleteFrom("nodes").execute();
    const smtp = await startSmtp();
    try {
      const { port, child, started } = await controllerWith("api", { SMTP_URL: smtp.url });
      expect(started.roles).toEqual(["api"]);
      expect(listeningPorts(child.pid!)).toEqual([port]);
      const email = `api-only-${Date.now()}@example.com`;
      const reg = await fetch(`http://127.0.0.1:${port}/v1/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: "correct horse battery" }),
      });
      expect(reg.status).toBe(201);
      // The notifier would send within its first poll (at once, then every 2 s); the api role leaves it queued.
      await new Promise((r) => setTimeout(r, 3000));
      const queued = await db.kysely
        .selectFrom("delivery_outbox")
        .select(["sent_at", "attempts"])
        .where("destination", "=", email)
        .executeTakeFirstOrThrow();
      expect(queued).toEqual({ sent_at: null, attempts: 0 });
      expect(smtp.inbox).toEqual([]);
      // The embedded agent heartbeats: the api role hears it (node choice needs no table), but without the
      // presence role nobody writes it to the table.
      const items = await until(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/v1/nodes`);
        const listed = ((await res.json()) as { data: { items: { id: string; status: string }[] } }).data;
        return listed.items.length > 0 ? listed.items : undefined;
      });
      expect(items.map((n) => [n.id, n.status])).toEqual([["local", "online"]]);
      expect(await db.kysely.selectFrom("nodes").select("id").execute()).toEqual([]);
    } finally {
      await smtp.stop();
    }
  });

  it("all roles by default: listens, and says so", async () => {
    const { port, child, started } = await controllerWith("api,scheduler,notifier,presence");
    expect(started.roles).toEqual(["presence", "scheduler", "notifier", "api"]);
    expect(await accepts(port)).toBe(true);
    expect(listeningPorts(child.pid!)).toEqual([port]);
  });
});

describe("NATS authorization check at start", () => {
  let pg: TestDatabase;
  beforeAll(async () => {
    pg = await createTestDatabase();
  });
  afterAll(async () => {
    await pg.drop();
  });

  it("refuses to serve on a NATS server that enforces no permissions (one line, exit 2)", async () => {
    const nats = await startNatsServer();
    try {
      const child = startController({
        DATABASE_URL: pg.url,
        NATS_URL: nats.url,
        PORT: "0",
      });
      const { code, stderr } = await exitOf(child);
      expect(code).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toContain("NATS server does not enforce permissions");
      expect(stderr).toContain("VANTAGE_ALLOW_OPEN_NATS=true");
    } finally {
      await nats.stop();
    }
  });

  it("a SIGTERM during start-up stops it cleanly once started (exit 0), not by the signal", async () => {
    const creds = createControllerCredentials();
    const nats = await startNatsServer({ users: [creds.user] });
    const seed = seedFile(creds.seed);
    try {
      const child = startController({
        DATABASE_URL: pg.url,
        PORT: "0",
        NATS_URL: nats.url,
        NATS_NKEY_SEED_FILE: seed.path,
        VANTAGE_LOG_LEVEL: "info",
      });
      const exited = exitOf(child);
      const log = logLines(child);
      // The first line comes early in the start, well before "controller running".
      await log.waitFor(() => true);
      child.kill("SIGTERM");
      // Ended by the signal itself, the code would be null.
      expect((await exited).code).toBe(0);
      await log.waitFor((l) => l.msg === "stopped", 10_000);
    } finally {
      seed.remove();
      await nats.stop();
    }
  });

  it("serves on an open server with VANTAGE_ALLOW_OPEN_NATS=true, and on one with authorization", async () => {
    const open = await startNatsServer();
    const creds = createControllerCredentials();
    const secured = await startNatsServer({ users: [creds.user] });
    const seed = seedFile(creds.seed);
    try {
      for (const env of [
        { NATS_URL: open.url, VANTAGE_ALLOW_OPEN_NATS: "true" },
        { NATS_URL: secured.url, NATS_NKEY_SEED_FILE: seed.path },
      ]) {
        const child = startController({
          DATABASE_URL: pg.url,
          PORT: "0",
          VANTAGE_LOG_LEVEL: "info",
          ...env,
        });
        const exited = exitOf(child);
        const { log } = await listeningOn(child, { timeoutMs: 30_000 });
        const verdict = env.VANTAGE_ALLOW_OPEN_NATS
          ? await log.waitFor((l) => String(l.msg).startsWith("NATS server does not enforce permissions"))
          : await log.waitFor((l) => l.msg === "NATS enforces permissions");
        expect(verdict.level).toBe(env.VANTAGE_ALLOW_OPEN_NATS ? 40 : 30);
        child.kill("SIGTERM");
        expect((await exited).code).toBe(0);
      }
    } finally {
      seed.remove();
      await open.stop();
      await secured.stop();
    }
  });
});
