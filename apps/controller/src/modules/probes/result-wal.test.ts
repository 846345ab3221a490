import { generateKeyPairSync } from "node:crypto";
import { resultSigner } from "@vantage/protocol";
import { type NatsServer, startNatsServer } from "@vantage/testing";
import { connectNats, openResultsLog, type ResultsLog } from "@vantage/transport";
import { sql } from "kysely";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tcpResult } from "../../testing/probe-requests.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { BackgroundWork } from "./background.js";
import { findTask, newTaskId, type TaskRecord } from "./repo.js";
import { drainResultLogs, ResultWal } from "./result-wal.js";
import { ResultWriter } from "./result-writer.js";

/**
 * The controller's side of the results write-ahead log (ADR 0012) on a real nats-server with JetStream:
 * records leave the log once the writer has stored their tasks, and what a controller without a fresh
 * lease left is stored by another and purged; a live controller's records are left to it.
 */

const silent = pino({ level: "silent" });

function task(id = newTaskId()): TaskRecord {
  const created = new Date();
  return {
    id,
    type: "tcp",
    target: "example.com:443",
    spec: { type: "tcp", params: { host: "example.com", port: 443, timeout_ms: 5000 } },
    owner_id: null,
    node_ids: ["n1"],
    status: "done",
    created_at: created,
    finished_at: new Date(created.getTime() + 3),
    results: [tcpResult("n1", 0)],
  };
}

describe.each(dbKinds)("results write-ahead log on %s", (kind) => {
  const fixture = useTestDb(kind);
  const db = () => fixture.testDb.db.kysely;
  // A server per database: the drain judges every controller in the stream by this database's leases.
  let nats: NatsServer;
  let nc: Awaited<ReturnType<typeof connectNats>>;
  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    nc = await connectNats({ servers: nats.url, name: "result-wal-test" });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });
  const open = (controllerId: string): Promise<ResultsLog> =>
    openResultsLog(nc, { controllerId, maxAgeMs: 3600_000, timeoutMs: 2000 });

  it("keeps a task in the log from before its answer until the writer has stored it", async () => {
    const id = `ctl_own${kind}`;
    const log = await open(id);
    const background = new BackgroundWork();
    const wal = new ResultWal(log, id, background, silent);
    const writer = new ResultWriter(db(), background, silent, { onSettled: (b) => wal.stored(b) });
    const tasks = Array.from({ length: 30 }, () => task());
    for (const t of tasks) {
      await wal.append(t);
      // Answered here: in the log, not yet in the database.
      expect((await log.writers()).get(id)).toBeGreaterThan(0);
      writer.write(t);
    }
    await background.drain();
    for (const t of tasks) expect((await findTask(db(), t.id))?.status).toBe("done");
    expect((await log.writers()).get(id)).toBeUndefined();
  });

  it("stores what a controller without a fresh lease left, once, and leaves a live one's records", async () => {
    const dead = `ctl_dead${kind}`;
    const live = `ctl_live${kind}`;
    const [deadLog, liveLog] = await Promise.all([open(dead), open(live)]);
    await sql`insert into controller_leases (id, renewed_at) values (${live}, now())`.execute(db());
    const left = Array.from({ length: 5 }, () => task());
    const stored = left[0]!;
    for (const t of left) await deadLog.append(t);
    // One of them had reached the database before the kill: drained again, still stored once.
    const background = new BackgroundWork();
    const writer = new ResultWriter(db(), background, silent);
    writer.write(stored);
    await background.drain();
    const running = task();
    await liveLog.append(running);

    const read = await drainResultLogs({ log: liveLog, db: db(), ownId: `ctl_other${kind}` });
    expect(read).toBe(5);
    for (const t of left) {
      const found = await findTask(db(), t.id);
      expect(found?.status).toBe("done");
      expect(found?.results).toHaveLength(1);
    }
    const writers = await liveLog.writers();
    expect(writers.get(dead)).toBeUndefined();
    expect(writers.get(live)).toBe(1);
    expect(await findTask(db(), running.id)).toBeUndefined();
    expect(await drainResultLogs({ log: liveLog, db: db(), ownId: `ctl_other${kind}` })).toBe(0);
  });

  it("checks the signatures of what it stores from the log: a forged one is dropped, its result kept", async () => {
    // The appender checks its nodes' signatures while the append is on its way, so a killed controller's
    // records may hold one that does not verify.
    const dead = `ctl_signed${kind}`;
    const log = await open(dead);
    const signer = resultSigner(generateKeyPairSync("ed25519").privateKey);
    const statement = '{"v":1,"node_id":"n1"}';
    const t = task();
    t.node_ids = ["n1", "n2"];
    t.results = [
      { ...tcpResult("n1", 0), signature: { key: signer.key, sig: signer.sign(statement), statement } },
      {
        ...tcpResult("n2", 1),
        signature: { key: signer.key, sig: signer.sign(statement), statement: statement.replace("n1", "n2") },
      },
    ];
    await log.append(t);
    expect(await drainResultLogs({ log, db: db(), ownId: `ctl_other${kind}` })).toBe(1);
    const stored = await findTask(db(), t.id);
    expect(stored?.results.map((r) => [r.node_id, r.signature?.statement ?? null])).toEqual([
      ["n1", statement],
      ["n2", null],
    ]);
  });
});
