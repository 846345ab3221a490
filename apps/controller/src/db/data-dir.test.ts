import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import type { Logger } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { type Runtime, startRuntime } from "../runtime.js";
import { migratedPgliteDump } from "../testing/pglite-template.js";
import { connectDb } from "./connect.js";

/** Every path under `root` (itself included) with its permission bits, e.g. `["pgdata/PG_VERSION", 0o600]`. */
function modes(root: string): [string, number][] {
  const out: [string, number][] = [[".", statSync(root).mode & 0o777]];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = statSync(path);
      out.push([join(rel, name), st.mode & 0o777]);
      if (st.isDirectory()) walk(path, join(rel, name));
    }
  };
  walk(root, "");
  return out;
}

const readableByOthers = (root: string) =>
  modes(root)
    .filter(([, mode]) => mode & 0o077)
    .map(([path, mode]) => `${mode.toString(8)} ${path}`);

describe("the embedded data directory is the owner's alone", () => {
  const dirs: string[] = [];
  let runtime: Runtime | undefined;
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "vantage-data-dir-"));
    dirs.push(dir);
    return join(dir, "data");
  };
  afterEach(async () => {
    await runtime?.stop();
    runtime = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("a first start and writes leave the directory 0700 and every file 0600, the umask given back", async () => {
    const umaskBefore = process.umask();
    const dataDir = tempDir();
    // No dump given: as on a newcomer's first start, from the build's migrated template (db/pglite-template.ts).
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      VANTAGE_DATA_DIR: dataDir,
      VANTAGE_LOG_LEVEL: "silent",
      VANTAGE_ACCESS_LOG: "false",
    });
    runtime = await startRuntime(config, createLogger("silent"));
    for (const n of [1, 2, 3]) {
      const res = await runtime.app.request("/v1/auth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `data-dir-${n}@example.com`, password: "correct horse battery" }),
      });
      expect(res.status).toBe(201);
    }
    expect(readableByOthers(dataDir)).toEqual([]);
    await runtime.stop();
    runtime = undefined;

    const all = modes(dataDir);
    expect(all.length).toBeGreaterThan(100);
    expect(all.map(([p]) => p)).toEqual(
      expect.arrayContaining(["jwt-secret", "pgdata", "pgdata/PG_VERSION"]),
    );
    expect(all.some(([p]) => p.startsWith("pgdata/pg_wal/"))).toBe(true);
    expect(readableByOthers(dataDir)).toEqual([]);
    for (const [path, mode] of all) expect([0o700, 0o600], path).toContain(mode);
    expect(process.umask()).toBe(umaskBefore);
  });

  it("an existing directory readable by others is made private at start, with a warning", async () => {
    const dataDir = tempDir();
    const first = await connectDb({ dataDir, pgliteDump: await migratedPgliteDump() });
    await first.close();
    // As an older version left it: directories 0755, files 0644, the controller's own secret too.
    writeFileSync(join(dataDir, "jwt-secret"), "x".repeat(43));
    mkdirSync(join(dataDir, "pgdata", "extra"));
    for (const [path, mode] of modes(dataDir))
      chmodSync(
        join(dataDir, path),
        statSync(join(dataDir, path)).isDirectory() ? 0o755 : 0o644 | (mode & 0o100),
      );
    expect(readableByOthers(dataDir).length).toBeGreaterThan(100);

    const warnings: { obj: unknown; msg: string }[] = [];
    const log = { warn: (obj: unknown, msg: string) => void warnings.push({ obj, msg }) };
    const db = await connectDb({ dataDir, log: log as unknown as Pick<Logger, "warn"> });
    await sql`create table data_dir_check as select repeat('x', 100) as x from generate_series(1, 1000)`.execute(
      db.kysely,
    );
    await db.close();

    expect(readableByOthers(dataDir)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/readable by other users/);
  });
});
