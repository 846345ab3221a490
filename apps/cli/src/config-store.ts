import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { Form } from "./api-client.js";
import { CliError } from "./errors.js";

/** What `vantage login` keeps: the deployment, its key, and its form (so later commands skip detecting it). */
export interface StoredConfig {
  api: string;
  key?: string;
  form?: Form;
}

/** `$XDG_CONFIG_HOME/vantage/config.json`, else `~/.config/vantage/config.json` (XDG base directories). */
export function configPath(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".config");
  return join(base, "vantage", "config.json");
}

export function readConfig(path: string): StoredConfig | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const cfg = JSON.parse(text) as Partial<StoredConfig>;
    if (typeof cfg.api !== "string") throw new Error("no api");
    return {
      api: cfg.api,
      ...(typeof cfg.key === "string" ? { key: cfg.key } : {}),
      ...(cfg.form === "a" || cfg.form === "b" ? { form: cfg.form } : {}),
    };
  } catch {
    throw new CliError(`${path} is not a vantage config: run \`vantage logout\` and log in again`);
  }
}

/** Writes the file readable by its owner only (it holds a key): directory 700, file 600. */
export function writeConfig(path: string, cfg: StoredConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(cfg, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode through writeFileSync
}

export function removeConfig(path: string): boolean {
  try {
    rmSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new CliError(`cannot remove ${path}: ${(err as Error).message}`);
  }
}
