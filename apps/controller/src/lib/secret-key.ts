import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import { type Config, ConfigError } from "../config.js";
import { makePrivateDir } from "./data-dir.js";
import { parseSecretKey, SecretKey } from "./secret-box.js";

export interface SecretKeys {
  current: SecretKey;
  previous: SecretKey[];
}

const howToSet =
  "make one with `openssl rand -base64 32` and set it as VANTAGE_SECRET_KEY on every controller (docs/security.md, Secrets at rest)";

/**
 * The keys secrets at rest are sealed with (lib/secret-box.ts): `VANTAGE_SECRET_KEY` when set, with
 * `VANTAGE_SECRET_KEYS_PREVIOUS` still accepted for reading. Unset in embedded mode, the key is
 * `<data dir>/secret-key`, generated (32 random bytes, base64, mode 0600) on first start and reused
 * afterwards, like the JWT secret. Unlike the JWT secret, with `DATABASE_URL` set and no key the controller
 * refuses to start (a ConfigError, exit 2): a JWT secret that differs between controllers costs a login,
 * but a value sealed with one controller's own key could never be opened by the others, and a key lost
 * with a container's data directory loses every sealed secret.
 */
export function resolveSecretKey(
  config: Pick<
    Config,
    "VANTAGE_SECRET_KEY" | "VANTAGE_SECRET_KEYS_PREVIOUS" | "VANTAGE_DATA_DIR" | "DATABASE_URL"
  >,
  log: Logger,
): SecretKeys {
  const previous = config.VANTAGE_SECRET_KEYS_PREVIOUS;
  const dataDir = config.VANTAGE_DATA_DIR;
  if (config.VANTAGE_SECRET_KEY) {
    const current = config.VANTAGE_SECRET_KEY;
    if (!dataDir.startsWith("memory://"))
      warnIfKeyFileIsLeftOut(join(resolve(dataDir), "secret-key"), current, previous, log);
    return { current, previous };
  }
  if (config.DATABASE_URL) {
    throw new ConfigError(
      `VANTAGE_SECRET_KEY is unset: with DATABASE_URL, controllers must share one key to read each other's sealed secrets; ${howToSet}`,
    );
  }
  if (dataDir.startsWith("memory://")) return { current: SecretKey.generate(), previous };
  const dir = resolve(dataDir);
  const file = join(dir, "secret-key");
  const existing = readKeyFile(file, log);
  if (existing) return { current: existing, previous };

  makePrivateDir(dir);
  const generated = SecretKey.generate();
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${generated.toBase64()}\n`, { mode: 0o600, flag: "wx" });
  try {
    // link, not rename: a key another process wrote in the meantime is kept, never replaced.
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const theirs = readKeyFile(file, log);
    if (theirs) return { current: theirs, previous };
    throw err;
  } finally {
    unlinkSync(temp);
  }
  log.info(
    { file, key_id: generated.id },
    "generated the key for secrets at rest; back it up with the data: without it, alert-channel secrets must be entered again",
  );
  return { current: generated, previous };
}

/** The key in the file; undefined when there is none (an empty file, left by a crash, counts as none). */
function readKeyFile(file: string, log: Logger): SecretKey | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  if (text === "") {
    unlinkSync(file);
    return undefined;
  }
  let key: SecretKey;
  try {
    key = parseSecretKey(text);
  } catch (error) {
    // Never replaced silently: a new key would make every value sealed with the old one unreadable.
    throw new ConfigError(
      `${file} holds no valid secret key (${(error as Error).message}); restore it from a backup, or delete it ` +
        "to generate a new one (alert-channel secrets sealed with the old key must then be entered again)",
    );
  }
  if ((statSync(file).mode & 0o077) !== 0) {
    log.warn({ file }, "the secret key file is readable by other users: chmod 600 it");
  }
  return key;
}

/** A generated key left behind when VANTAGE_SECRET_KEY was set later: its values open no more. Say so. */
function warnIfKeyFileIsLeftOut(file: string, current: SecretKey, previous: SecretKey[], log: Logger): void {
  let key: SecretKey;
  try {
    key = parseSecretKey(readFileSync(file, "utf8"));
  } catch {
    return;
  }
  if (key.id === current.id || previous.some((p) => p.id === key.id)) return;
  log.warn(
    { file, key_id: key.id },
    "VANTAGE_SECRET_KEY is set and differs from the generated key in the data directory: values sealed with " +
      "that key cannot be opened; add the file's key to VANTAGE_SECRET_KEYS_PREVIOUS and run `pnpm secrets:rotate`",
  );
}
