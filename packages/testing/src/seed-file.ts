import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes an nkey seed to `<dir>/<name>.nk` with mode 600 (agents refuse a seed others can read); its path. */
export function writeSeedFile(dir: string, name: string, seed: string): string {
  const path = join(dir, `${name}.nk`);
  writeFileSync(path, `${seed}\n`);
  chmodSync(path, 0o600);
  return path;
}
