import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

/**
 * A setup file the config adds when `VANTAGE_TEST_CPU_COUNT=<file>` is set: one line per test file appended
 * to `<file>`, `<cpu s of the worker> <cpu s of its children> <wall s> <path>`, from its first `beforeAll` to
 * its last `afterAll`. The worker's count is every thread of the process (worker threads such as the
 * password pool's, GC), which a V8 profile (`VANTAGE_TEST_CPU_PROF`) of the main thread leaves out; the
 * children's is what the processes it started and waited for used (controllers, agents, CLIs).
 */
const out = process.env.VANTAGE_TEST_CPU_COUNT;
if (out) {
  // utime, stime, cutime, cstime of /proc/self/stat (fields 14–17), in seconds (USER_HZ is 100 on Linux).
  const read = (): number[] => {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return [11, 12, 13, 14].map((i) => Number(fields[i]) / 100);
  };
  let start: number[] = [];
  let startedAt = 0;
  beforeAll(() => {
    start = read();
    startedAt = Date.now();
  });
  afterAll(() => {
    const [u, s, cu, cs] = read().map((v, i) => v - (start[i] ?? 0)) as [number, number, number, number];
    const file = relative(process.cwd(), expect.getState().testPath ?? "unknown");
    const wall = (Date.now() - startedAt) / 1000;
    appendFileSync(out, `${(u + s).toFixed(2)}\t${(cu + cs).toFixed(2)}\t${wall.toFixed(1)}\t${file}\n`);
  });
}
