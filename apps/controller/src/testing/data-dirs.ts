import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/**
 * Data directories for the controller processes of a `describe` block (call it in the block's body): each
 * call of the returned function makes one in the system's temporary directory, and all are removed after
 * the block's tests, once its own `afterAll` (registered later, run first) has stopped the processes.
 */
export function useDataDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `vantage-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}
