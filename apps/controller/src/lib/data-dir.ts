import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The embedded data directory (`VANTAGE_DATA_DIR`) holds the PGlite cluster (every account's email and
 * password hash) and the generated secrets, so like PostgreSQL's own data directory it is the owner's
 * alone: the directory 0700, its files 0600. Group and other bits are never needed and always removed.
 */
const GROUP_OTHER = 0o077;

/** Creates `dir` (and missing parents) with mode 0700; an existing directory is left as it is. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Removes group and other bits from `path` and, for a directory and `recursive`, from everything under
 * it (symbolic links are not followed). Returns the paths that had them, so the caller can say so.
 */
export function stripGroupOther(path: string, recursive: boolean): string[] {
  const fixed: string[] = [];
  const visit = (p: string, descend: boolean) => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    if (st.isSymbolicLink()) return;
    if (st.mode & GROUP_OTHER) {
      chmodSync(p, st.mode & 0o700);
      fixed.push(p);
    }
    if (descend && st.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name), true);
  };
  visit(path, recursive);
  return fixed;
}

let umaskHolders = 0;
let savedUmask: number | undefined;

/**
 * Files created from now on get no group or other bits (umask 077, what PostgreSQL's postmaster sets):
 * PGlite writes its files itself through Node's fs, with 0644 under the usual umask 022. The mask is
 * process-wide; it is given back when every holder has released it. False where a process cannot set it
 * (a worker thread): the caller then strips the bits itself.
 */
export function holdPrivateUmask(): { held: boolean; release(): void } {
  try {
    const previous = process.umask(0o077);
    if (umaskHolders++ === 0) savedUmask = previous;
  } catch {
    return { held: false, release() {} };
  }
  let released = false;
  return {
    held: true,
    release() {
      if (released) return;
      released = true;
      if (--umaskHolders === 0 && savedUmask !== undefined) process.umask(savedUmask);
    },
  };
}
