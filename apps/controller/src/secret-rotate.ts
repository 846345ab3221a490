import type { Logger } from "pino";
import { ConfigError, loadConfig } from "./config.js";
import { configuredDb, connectDb, migrate } from "./db/connect.js";
import { type ResealCounts, resealColumns, type SealedColumn, sealedColumns } from "./lib/sealed-columns.js";
import { createSecretBox } from "./lib/secret-box.js";
import { resolveSecretKey } from "./lib/secret-key.js";
import { createLogger } from "./logger.js";

export const usage = "usage: pnpm secrets:rotate [--dry-run] [--batch-size N]";

export interface RotateOptions {
  env?: Record<string, string | undefined>;
  /** The sealed columns to walk (the registry; tests pass their own). */
  columns?: readonly SealedColumn[];
  out?: (line: string) => void;
  err?: (line: string) => void;
  log?: Logger;
}

/**
 * `pnpm secrets:rotate [--dry-run] [--batch-size N]` (secret-rotate-cli.ts): re-seals every sealed value
 * (lib/sealed-columns.ts) not sealed with VANTAGE_SECRET_KEY, reading the old ones with
 * VANTAGE_SECRET_KEYS_PREVIOUS. Run it once every controller has the new key and the old one in PREVIOUS;
 * when it reports 0 unreadable, PREVIOUS can go. Safe while controllers run: a row changed meanwhile is left
 * to them (run again to take it). Returns the exit code: 0 done, 1 some values could not be opened or the
 * database failed, 2 usage or configuration. With the embedded database (no DATABASE_URL) stop the service
 * first: PGlite is one process's alone.
 */
export async function secretsRotate(args: readonly string[], opts: RotateOptions = {}): Promise<number> {
  const out = opts.out ?? ((line) => process.stdout.write(`${line}\n`));
  const err = opts.err ?? ((line) => process.stderr.write(`${line}\n`));
  const columns = opts.columns ?? sealedColumns;
  let dryRun = false;
  let batchSize = 500;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--dry-run") {
      dryRun = true;
      continue;
    }
    const n = args[i] === "--batch-size" ? Number(args[++i]) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > 100_000) {
      err(usage);
      return 2;
    }
    batchSize = n;
  }
  const summary = (c: ResealCounts) =>
    `${c.table}.${c.column}: ${c.resealed} ${dryRun ? "to re-seal" : "re-sealed"}, ${c.current} already current, ` +
    `${c.unreadable} unreadable${c.changed ? `, ${c.changed} changed meanwhile (run again)` : ""}`;

  try {
    const config = loadConfig(opts.env);
    const log = opts.log ?? createLogger(config.VANTAGE_LOG_LEVEL, "vantage-secrets-rotate");
    const keys = resolveSecretKey(config, log);
    const box = createSecretBox(keys);
    out(
      `current key ${keys.current.id}; previous keys: ${keys.previous.map((k) => k.id).join(", ") || "none"}` +
        (dryRun ? " (dry run: nothing is written)" : ""),
    );
    if (columns.length === 0) {
      out("no sealed columns yet: nothing to re-seal");
      return 0;
    }
    const db = await connectDb(configuredDb(config));
    let results: ResealCounts[];
    try {
      // The tables may not exist yet (a database no controller has started on): as the controller does.
      await migrate(db);
      results = await resealColumns(db, box, columns, {
        batchSize,
        dryRun,
        onBatch: (c) => out(`  … ${summary(c)}`),
      });
    } finally {
      await db.close();
    }
    for (const c of results) {
      out(summary(c));
      if (c.unreadable > 0)
        out(`  unreadable ids: ${c.unreadableIds.join(", ")}${c.unreadable > 20 ? ", …" : ""}`);
    }
    if (results.some((c) => c.unreadable > 0)) {
      err(
        "vantage secrets:rotate: some values open with none of the keys given: keep their key in " +
          "VANTAGE_SECRET_KEYS_PREVIOUS and run again, or have those secrets entered again",
      );
      return 1;
    }
    return 0;
  } catch (error) {
    err(`vantage secrets:rotate: ${error instanceof ConfigError ? error.message : String(error)}`);
    return error instanceof ConfigError ? 2 : 1;
  }
}
