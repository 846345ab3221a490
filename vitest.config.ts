import { defineConfig } from "vitest/config";

/** The network lab's fidelity tests compare timings with iputils, dig and curl: they run last, one file at a time. */
const fidelity = "packages/netlab/src/fidelity/**/*.test.ts";

export default defineConfig({
  test: {
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: process.env.VITEST_JSON_OUT
      ? ["default", ["json", { outputFile: process.env.VITEST_JSON_OUT }]]
      : ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "main",
          // Two files at a time on two cores: most suites wait on timers, sockets and child processes,
          // so a second file overlaps those waits (one worker left the cores idle half the run).
          maxWorkers: 2,
          include: ["apps/*/src/**/*.test.ts", "packages/*/src/**/*.test.ts"],
          exclude: [fidelity, "**/node_modules/**"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Our probes time replies in user space (the event loop), iputils with kernel timestamps: with other
        // test files competing for the two cores, a late wake-up alone could move an average past its
        // tolerance. Alone, the comparison measures the probes.
        extends: true,
        test: {
          name: "fidelity",
          include: [fidelity],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
