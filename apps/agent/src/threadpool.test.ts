import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const preload = fileURLToPath(new URL("./threadpool.cjs", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const { threadpoolSize } = createRequire(import.meta.url)("./threadpool.cjs") as {
  threadpoolSize: (env: Record<string, string | undefined>) => number;
};

describe("threadpool.cjs", () => {
  it("sizes the pool from the concurrency cap plus libuv's 4, between 8 and 128", () => {
    expect(threadpoolSize({})).toBe(68);
    expect(threadpoolSize({ VANTAGE_AGENT_CONCURRENCY: "16" })).toBe(20);
    expect(threadpoolSize({ VANTAGE_AGENT_CONCURRENCY: "1" })).toBe(8);
    expect(threadpoolSize({ VANTAGE_AGENT_CONCURRENCY: "4096" })).toBe(128);
    expect(threadpoolSize({ VANTAGE_AGENT_CONCURRENCY: "lots" })).toBe(68);
  });

  describe("in a process started like the agent (node --require it --import tsx)", () => {
    let dir: string;
    let script: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "vantage-threadpool-"));
      const fifos = [1, 2, 3, 4].map((i) => join(dir, `fifo${i}`));
      for (const f of fifos) {
        const made = spawnSync("mkfifo", [f]);
        if (made.error || made.status !== 0)
          throw new Error(`this test needs mkfifo (coreutils): ${made.error}`);
      }
      // Four opens of FIFOs nobody writes to hold four pool threads; does a fifth pool task still run?
      script = join(dir, "probe.mjs");
      writeFileSync(
        script,
        `import { closeSync, constants, openSync } from "node:fs";
import { open, stat } from "node:fs/promises";
const fifos = ${JSON.stringify(fifos)};
for (const f of fifos) void open(f, "r");
const free = await Promise.race([
  stat(${JSON.stringify(dir)}).then(() => true),
  new Promise((r) => setTimeout(() => r(false), 1500)),
]);
// A writer end lets each blocked open go: the process cannot exit while pool threads are stuck.
for (const f of fifos) {
  for (let i = 0; ; i++) {
    try {
      closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
      break;
    } catch (err) {
      if (i > 500) throw err; // ENXIO until its reader's open has started
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}
process.stdout.write(JSON.stringify({ size: process.env.UV_THREADPOOL_SIZE ?? null, free }));
process.exit(0);
`,
      );
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const run = (args: string[], env: Record<string, string> = {}) => {
      const res = spawnSync(process.execPath, [...args, "--import", "tsx", script], {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? "", ...env },
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(res.status, res.stderr).toBe(0);
      return JSON.parse(res.stdout) as { size: string | null; free: boolean };
    };

    it("with the preload, four blocked threads leave room for more work", () => {
      expect(run(["--require", preload], { VANTAGE_AGENT_CONCURRENCY: "8" })).toEqual({
        size: "12",
        free: true,
      });
    });

    it("keeps a value the operator set", () => {
      expect(run(["--require", preload], { UV_THREADPOOL_SIZE: "4" })).toEqual({ size: "4", free: false });
    });

    it("without it, libuv's 4 threads are all taken (what the preload is for)", () => {
      expect(run([])).toEqual({ size: null, free: false });
    });
  });
});
