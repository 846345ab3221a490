import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appArgs, captureLog, createTestDatabase } from "@vantage/testing";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { connectDb } from "./db/connect.js";
import type { SealedColumn } from "./lib/sealed-columns.js";
import { createSecretBox, SecretKey } from "./lib/secret-box.js";
import { secretsRotate } from "./secret-rotate.js";

const dataDir = mkdtempSync(join(tmpdir(), "vantage-rotate-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `pnpm secrets:rotate …` as a child process; its exit code, stdout and stderr. */
function rotate(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...appArgs("secrets:rotate"), ...args], {
    env: {
      ...process.env,
      DATABASE_URL: "",
      VANTAGE_SECRET_KEY: "",
      VANTAGE_SECRET_KEYS_PREVIOUS: "",
      VANTAGE_LOG_LEVEL: "warn",
      VANTAGE_DATA_DIR: dataDir,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stdout, stderr })),
  );
}

describe("pnpm secrets:rotate (the process)", () => {
  it("embedded mode: uses (and first generates) the data directory's key; a fresh database has nothing sealed", async () => {
    const { code, stdout, stderr } = await rotate([], {});
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/current key [0-9a-f]{8}; previous keys: none/);
    expect(stdout).toMatch(/alert_channels\.secrets/);
    expect(statSync(join(dataDir, "secret-key")).mode & 0o777).toBe(0o600);
  });

  it("names the previous keys it reads with (their ids, never the keys)", async () => {
    const [current, old] = [SecretKey.generate(), SecretKey.generate()];
    const { code, stdout } = await rotate(["--dry-run", "--batch-size", "50"], {
      VANTAGE_SECRET_KEY: current.toBase64(),
      VANTAGE_SECRET_KEYS_PREVIOUS: old.toBase64(),
    });
    expect(code).toBe(0);
    expect(stdout).toContain(`current key ${current.id}; previous keys: ${old.id} (dry run`);
    expect(stdout).not.toContain(old.toBase64());
  });

  it("exit 2: DATABASE_URL without VANTAGE_SECRET_KEY, a bad key, a bad argument", async () => {
    const distributed = await rotate([], { DATABASE_URL: "postgres://127.0.0.1:9/none" });
    expect(distributed.code).toBe(2);
    expect(distributed.stderr).toMatch(/^vantage secrets:rotate: VANTAGE_SECRET_KEY is unset/);

    const bad = await rotate([], { VANTAGE_SECRET_KEY: "my passphrase" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/VANTAGE_SECRET_KEY=\(13 characters, not shown\).*openssl rand -base64 32/);
    expect(bad.stderr).not.toContain("my passphrase");

    const usage = await rotate(["--batch-size", "zero"], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^usage: pnpm secrets:rotate/);
  });
});

describe.each(["pglite", "postgres"] as const)("secretsRotate over a temporary table (%s)", (kind) => {
  const [oldKey, newKey] = [SecretKey.generate(), SecretKey.generate()];
  const column: SealedColumn = {
    table: "rotate_cli_test",
    column: "secrets",
    id: "id",
    aad: (id) => `rotate_cli_test:${id}`,
  };

  it("re-seals what the previous key sealed, printing counts per batch and in the end", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vantage-rotate-"));
    const tdb = kind === "postgres" ? await createTestDatabase() : undefined;
    const env = {
      VANTAGE_DATA_DIR: dir,
      ...(tdb ? { DATABASE_URL: tdb.url } : {}),
      VANTAGE_SECRET_KEY: newKey.toBase64(),
      VANTAGE_SECRET_KEYS_PREVIOUS: oldKey.toBase64(),
    };
    const connect = () => connectDb({ databaseUrl: tdb?.url, dataDir: dir });
    try {
      const old = createSecretBox({ current: oldKey, previous: [] });
      let db = await connect();
      await sql`create table rotate_cli_test (id text primary key, secrets text)`.execute(db.kysely);
      for (let i = 0; i < 5; i++) {
        const id = `ach_${i}`;
        await sql`insert into rotate_cli_test values (${id}, ${old.sealJson({ token: `t${i}` }, column.aad(id))})`.execute(
          db.kysely,
        );
      }
      await db.close();

      const lines: string[] = [];
      const run = (args: string[]) =>
        secretsRotate(args, {
          env,
          columns: [column],
          out: (l) => lines.push(l),
          err: (l) => lines.push(`! ${l}`),
          log: captureLog().log,
        });
      expect(await run(["--dry-run"])).toBe(0);
      expect(lines.at(-1)).toBe("rotate_cli_test.secrets: 5 to re-seal, 0 already current, 0 unreadable");
      lines.length = 0;
      expect(await run(["--batch-size", "2"])).toBe(0);
      expect(lines).toEqual([
        `current key ${newKey.id}; previous keys: ${oldKey.id}`,
        "  … rotate_cli_test.secrets: 2 re-sealed, 0 already current, 0 unreadable",
        "  … rotate_cli_test.secrets: 4 re-sealed, 0 already current, 0 unreadable",
        "  … rotate_cli_test.secrets: 5 re-sealed, 0 already current, 0 unreadable",
        "rotate_cli_test.secrets: 5 re-sealed, 0 already current, 0 unreadable",
      ]);

      // The old key can go now: every value opens with the new key alone.
      const withoutOld = createSecretBox({ current: newKey, previous: [] });
      db = await connect();
      const { rows } = await sql<{
        id: string;
        secrets: string;
      }>`select id, secrets from rotate_cli_test order by id`.execute(db.kysely);
      // One value sealed with a key nobody has any more: reported, exit 1.
      const lost = createSecretBox({ current: SecretKey.generate(), previous: [] }).sealJson(
        { token: "x" },
        column.aad("ach_9"),
      );
      await sql`insert into rotate_cli_test values (${"ach_9"}, ${lost})`.execute(db.kysely);
      await db.close();
      expect(rows.map((r) => withoutOld.openJson(r.secrets, column.aad(r.id)))).toEqual(
        [0, 1, 2, 3, 4].map((i) => ({ token: `t${i}` })),
      );
      lines.length = 0;
      expect(await run([])).toBe(1);
      expect(lines).toContain("rotate_cli_test.secrets: 0 re-sealed, 5 already current, 1 unreadable");
      expect(lines).toContain("  unreadable ids: ach_9");
      expect(lines.at(-1)).toMatch(/^! vantage secrets:rotate: some values open with none of the keys/);
    } finally {
      await tdb?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
