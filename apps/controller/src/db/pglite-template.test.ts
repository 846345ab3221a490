import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import type { Logger } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { connectDb, migrate, PGLITE_CACHE_MB_DEFAULT } from "./connect.js";
import { inlineMigrations } from "./migrations/index.js";
import {
  extractDataDir,
  isWholeTar,
  makePgliteTemplate,
  pgliteTemplateFile,
  readPgliteTemplate,
} from "./pglite-template.js";

const root = mkdtempSync(join(tmpdir(), "vantage-template-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Paths under `dir` whose mode lets group or others in. */
function notPrivate(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.mode & 0o077) out.push(path);
      if (st.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return out;
}

/** A ustar archive of `members` (a file when `data` is given, else a directory), as `tar` writes one. */
function tarOf(members: { name: string; data?: string }[]): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const m of members) {
    const data = new TextEncoder().encode(m.data ?? "");
    const header = new Uint8Array(512);
    const put = (at: number, text: string) => header.set(new TextEncoder().encode(text), at);
    put(0, m.name);
    put(100, m.data === undefined ? "0000755\0" : "0000644\0");
    put(124, `${data.length.toString(8).padStart(11, "0")}\0`);
    header[156] = (m.data === undefined ? "5" : "0").charCodeAt(0);
    put(257, "ustar\0");
    put(263, "00");
    blocks.push(header, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of blocks) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

function warnings() {
  const seen: { obj: unknown; msg: string }[] = [];
  const log = { warn: (obj: unknown, msg: string) => void seen.push({ obj, msg }) };
  return { seen, log: log as unknown as Pick<Logger, "warn"> };
}

describe("the migrated template of new embedded databases", () => {
  it("is named by the migrations and PGlite's version, and made once", async () => {
    const first = await makePgliteTemplate();
    expect(first.file).toBe(pgliteTemplateFile());
    expect(first.file).toMatch(/node_modules\/\.cache\/vantage-pglite\/pglite-[0-9a-f]{16}\.tar$/);
    const again = await makePgliteTemplate();
    expect(again.made).toBe(false);
    expect(readPgliteTemplate()?.size).toBe(first.dump.size);
  });

  it("a new data directory starts from it: every migration applied, the files private", async () => {
    await makePgliteTemplate();
    const dataDir = join(root, "new");
    const db = await connectDb({ dataDir });
    expect(await migrate(db)).toEqual([]);
    const names = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      db.kysely,
    );
    const all = Object.keys(await inlineMigrations.getMigrations()).sort();
    expect(names.rows.map((r) => r.name)).toEqual(all);
    // Opened with the smaller buffer cache, not the 128 MB its configuration file names.
    const buffers = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(db.kysely);
    expect(buffers.rows[0]?.shared_buffers).toBe(`${PGLITE_CACHE_MB_DEFAULT}MB`);
    await db.close();
    expect(notPrivate(dataDir)).toEqual([]);
    // VANTAGE_PGLITE_CACHE_MB: the same directory opened again with a cache of the operator's size.
    const larger = await connectDb({ dataDir, pgliteCacheMb: 48 });
    const again = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(larger.kysely);
    expect(again.rows[0]?.shared_buffers).toBe("48MB");
    await larger.close();
  });

  it("an existing data directory is opened as it is, not replaced by the template", async () => {
    const dataDir = join(root, "existing");
    const first = await connectDb({ dataDir });
    await sql`create table kept (x int)`.execute(first.kysely);
    await sql`insert into kept values (42)`.execute(first.kysely);
    await first.close();
    const second = await connectDb({ dataDir });
    const rows = await sql<{ x: number }>`select x from kept`.execute(second.kysely);
    expect(rows.rows).toEqual([{ x: 42 }]);
    await second.close();
  });

  it("knows a whole tar archive from a cut or foreign one", async () => {
    const whole = new Uint8Array(await (await makePgliteTemplate()).dump.arrayBuffer());
    expect(isWholeTar(whole)).toBe(true);
    expect(isWholeTar(whole.subarray(0, Math.floor(whole.length / 2)))).toBe(false);
    expect(isWholeTar(whole.subarray(0, 512))).toBe(false);
    expect(isWholeTar(new Uint8Array(1024))).toBe(false);
    expect(isWholeTar(new TextEncoder().encode("not a tar".repeat(200)))).toBe(false);
  });

  it("is written out as private files and directories, and no member outside the directory", () => {
    const dir = join(root, "extracted", "pgdata");
    extractDataDir(tarOf([{ name: "/base" }, { name: "/base/1/PG_VERSION", data: "17\n" }]), dir);
    expect(readFileSync(join(dir, "base/1/PG_VERSION"), "utf8")).toBe("17\n");
    expect(notPrivate(join(root, "extracted"))).toEqual([]);
    const escaping = join(root, "escaping", "pgdata");
    expect(() =>
      extractDataDir(tarOf([{ name: "base" }, { name: "../../outside", data: "x" }]), escaping),
    ).toThrow("outside the data directory");
    expect(existsSync(join(root, "outside"))).toBe(false);
    expect(() => extractDataDir(new Uint8Array(1024), escaping)).toThrow("not a whole tar archive");
  });

  it("a damaged template is logged and the database made from scratch, still private", async () => {
    const dataDir = join(root, "damaged");
    const { seen, log } = warnings();
    const { dump } = await makePgliteTemplate();
    const damaged = dump.slice(0, Math.floor(dump.size / 3));
    const db = await connectDb({ dataDir, pgliteDump: damaged, log });
    expect(seen.map((w) => w.msg)).toEqual([
      "the migrated database template is not a whole tar archive; making the database from scratch",
    ]);
    const applied = await migrate(db);
    expect(applied).toEqual(Object.keys(await inlineMigrations.getMigrations()).sort());
    await db.close();
    expect(notPrivate(dataDir)).toEqual([]);
  });
});
