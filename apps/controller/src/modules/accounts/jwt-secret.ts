import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import { makePrivateDir } from "../../lib/data-dir.js";

/**
 * The JWT signing secret: `VANTAGE_JWT_SECRET` when set; otherwise `<data dir>/jwt-secret`, generated
 * (32 random bytes, mode 0600) on first start and reused afterwards, so tokens survive restarts. Several
 * controllers must share one secret: set the variable for them (with DATABASE_URL set and no variable, a warning says so).
 */
export function resolveJwtSecret(
  opts: { secret: string | undefined; dataDir: string; distributed: boolean },
  log: Logger,
): string {
  if (opts.secret) return opts.secret;
  if (opts.dataDir.startsWith("memory://")) return randomBytes(32).toString("base64url");
  const dir = resolve(opts.dataDir);
  const file = join(dir, "jwt-secret");
  let secret: string | undefined;
  try {
    secret = readFileSync(file, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (!secret || secret.length < 32) {
    makePrivateDir(dir);
    secret = randomBytes(32).toString("base64url");
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "w" });
    chmodSync(file, 0o600);
    log.info({ file }, "generated a JWT signing secret");
  }
  if (opts.distributed) {
    log.warn(
      { file },
      "VANTAGE_JWT_SECRET unset: using the secret in the data directory; set it when running several controllers",
    );
  }
  return secret;
}
