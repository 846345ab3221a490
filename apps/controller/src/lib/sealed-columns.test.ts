import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbKinds, openTestDb, type TestDb } from "../testing/test-app.js";
import { type ResealCounts, resealColumns, type SealedColumn, sealedColumns } from "./sealed-columns.js";
import { createSecretBox, SecretKey } from "./secret-box.js";

const oldKey = SecretKey.generate();
const newKey = SecretKey.generate();
const strayKey = SecretKey.generate();
const before = createSecretBox({ current: oldKey, previous: [] });
const rotating = createSecretBox({ current: newKey, previous: [oldKey] });
const afterwards = createSecretBox({ current: newKey, previous: [] });

/** A stand-in for alert_channels: the registry entry the alerts module will add has this shape. */
const channels: SealedColumn = {
  table: "rotate_test_channels",
  column: "secrets",
  id: "id",
  aad: (id) => `rotate_test_channels:${id}`,
};

describe.each(dbKinds)("secrets:rotate re-sealing (%s)", (kind) => {
  let t: TestDb;
  const secretsOf = (i: number) => ({ routing_key: `key-${i}`, signing_secret: `whsec_${i}` });

  beforeAll(async () => {
    t = await openTestDb(kind);
    await sql`create table rotate_test_channels (id text primary key, name text not null, secrets text)`.execute(
      t.db.kysely,
    );
    // 7 rows under the old key, 3 already under the new one, one under a key nobody has, one sealed for
    // another row (copied), and one without secrets.
    const rows: { id: string; secrets: string | null }[] = [];
    for (let i = 0; i < 7; i++)
      rows.push({
        id: `ach_old_${i}`,
        secrets: before.sealJson(secretsOf(i), `rotate_test_channels:ach_old_${i}`),
      });
    for (let i = 0; i < 3; i++)
      rows.push({
        id: `ach_new_${i}`,
        secrets: rotating.sealJson(secretsOf(i), `rotate_test_channels:ach_new_${i}`),
      });
    const stray = createSecretBox({ current: strayKey, previous: [] });
    rows.push({ id: "ach_stray", secrets: stray.sealJson(secretsOf(9), "rotate_test_channels:ach_stray") });
    rows.push({ id: "ach_copied", secrets: before.sealJson(secretsOf(8), "rotate_test_channels:ach_old_0") });
    rows.push({ id: "ach_none", secrets: null });
    for (const r of rows) {
      await sql`insert into rotate_test_channels (id, name, secrets) values (${r.id}, ${"n"}, ${r.secrets})`.execute(
        t.db.kysely,
      );
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const stored = async () =>
    (
      await sql<{
        id: string;
        secrets: string | null;
      }>`select id, secrets from rotate_test_channels order by id`.execute(t.db.kysely)
    ).rows;

  it("the registry names every sealed column, with the aad its module seals with", () => {
    expect(sealedColumns.map((c) => [c.table, c.column, c.id, c.aad("x_1")])).toEqual([
      ["alert_channels", "secrets", "id", "alert_channels:x_1"],
      ["status_subscribers", "secret_sealed", "id", "status_subscribers:x_1"],
    ]);
  });

  it("a dry run counts and checks, and writes nothing", async () => {
    const rowsBefore = await stored();
    const [counts] = await resealColumns(t.db, rotating, [channels], { dryRun: true, batchSize: 4 });
    expect(counts).toMatchObject({ current: 3, resealed: 7, changed: 0, unreadable: 2 });
    expect(await stored()).toEqual(rowsBefore);
  });

  it("re-seals every value sealed with a previous key, in batches, and leaves unreadable ones alone", async () => {
    const untouched = (await stored()).filter(
      (r) => ["ach_stray", "ach_copied", "ach_none"].includes(r.id) || r.id.startsWith("ach_new"),
    );
    const progress: ResealCounts[] = [];
    const [counts] = await resealColumns(t.db, rotating, [channels], {
      batchSize: 3,
      onBatch: (c) => progress.push(c),
    });
    expect(counts).toEqual({
      table: "rotate_test_channels",
      column: "secrets",
      current: 3,
      resealed: 7,
      changed: 0,
      unreadable: 2,
      unreadableIds: ["ach_copied", "ach_stray"],
    });
    // 9 rows not under the current key, 3 a batch: 3 batches, counts growing.
    expect(progress.map((c) => c.resealed + c.unreadable)).toEqual([3, 6, 9]);

    const rows = await stored();
    for (let i = 0; i < 7; i++) {
      const row = rows.find((r) => r.id === `ach_old_${i}`)!;
      expect(rotating.needsRotation(row.secrets!)).toBe(false);
      // Opens without the old key, still bound to its own row.
      expect(afterwards.openJson(row.secrets!, `rotate_test_channels:ach_old_${i}`)).toEqual(secretsOf(i));
      expect(() => afterwards.openJson(row.secrets!, "rotate_test_channels:ach_old_99")).toThrow();
    }
    for (const r of untouched) expect(rows.find((x) => x.id === r.id)).toEqual(r);
  });

  it("a row changed between the read and the write is left to whoever changed it", async () => {
    const id = "ach_race";
    const aad = `rotate_test_channels:${id}`;
    await sql`insert into rotate_test_channels (id, name, secrets) values (${id}, ${"n"}, ${before.sealJson(secretsOf(1), aad)})`.execute(
      t.db.kysely,
    );
    const edited = rotating.sealJson({ routing_key: "entered by the user meanwhile" }, aad);
    // A controller saves the channel just before the re-seal's transaction starts.
    const kysely = t.db.kysely;
    const racing = {
      ...t.db,
      kysely: new Proxy(kysely, {
        get(target, prop) {
          if (prop !== "transaction") {
            // Kysely's methods use private fields: call them on the real instance.
            const value: unknown = Reflect.get(target, prop, target);
            return typeof value === "function" ? value.bind(target) : value;
          }
          return () => ({
            execute: async (fn: Parameters<ReturnType<typeof kysely.transaction>["execute"]>[0]) => {
              await sql`update rotate_test_channels set secrets = ${edited} where id = ${id}`.execute(target);
              return target.transaction().execute(fn);
            },
          });
        },
      }),
    };
    const [counts] = await resealColumns(racing, rotating, [channels], { batchSize: 100 });
    expect(counts).toMatchObject({ resealed: 0, changed: 1, unreadable: 2 });
    const row = (await stored()).find((r) => r.id === id)!;
    expect(row.secrets).toBe(edited);
  });

  it("a second run finds nothing left to re-seal", async () => {
    const [counts] = await resealColumns(t.db, rotating, [channels], { batchSize: 100 });
    expect(counts).toMatchObject({ current: 11, resealed: 0, changed: 0, unreadable: 2 });
  });
});
