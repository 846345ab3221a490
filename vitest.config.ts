import { readdirSync, readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./scripts/test-sequencer.js";

/** The network lab's fidelity tests compare timings with iputils, dig and curl: they run last, one file at a time. */
const fidelity = "packages/netlab/src/fidelity/**/*.test.ts";
/**
 * But mtr's compares hop lists and loss, no time: a reply read late by a busy process is not lost
 * (`replyDeadline`), so it runs with the serial files, its 40 s of rounds beside another file's waits.
 */
const mtrFidelity = "packages/netlab/src/fidelity/mtr.test.ts";

const e2e = "apps/controller/src/e2e";

/**
 * End-to-end files that only wait on events (an outage's end, a lease gone stale, a reconnect) with
 * deadlines far above need, and hold no answer to a wall-clock bound: they run beside the main project's
 * files, where their long waits overlap other work instead of holding up the serial queue.
 */
const e2eWaitingOnEvents = ["reconnect.e2e.test.ts", "results-wal.e2e.test.ts", "role-split.e2e.test.ts"];

/**
 * Files whose bounds are on their own CPU work (the fuzz's 1 s per request with bcrypt logins, the event
 * loop's share of a login, 503 within a second while the database is away, the fault suite's answers
 * through outages and kills of its own processes): after every other file, one at a time. With a second
 * file beside them, the fuzz, the login share and the fault suite missed a bound on a machine twice as slow
 * (one CPU hog), the database outage's 1 s with two hogs.
 */
const alone = [
  "apps/controller/src/fuzz.test.ts",
  `${e2e}/faults.e2e.test.ts`,
  "apps/controller/src/db/availability.test.ts",
  "apps/controller/src/modules/accounts/password-hashing.test.ts",
];

/**
 * Files that hold answers to wall-clock bounds while they start real processes and wait on them (outages,
 * monitors' slots, deliveries): after the main project, three at a time and never beside a main file, so
 * at most two other such files share the cores with them. Every end-to-end file is one unless listed
 * above (a new one starts here).
 */
const serial = [
  ...testFiles([e2e]).filter(
    (f) => !e2eWaitingOnEvents.some((name) => f.endsWith(`/${name}`)) && !alone.includes(f),
  ),
  "apps/controller/src/modules/probes/result-writer.test.ts",
  "apps/controller/src/modules/probes/probes-quota.test.ts",
  "apps/controller/src/modules/plans/shared-limits.test.ts",
  "apps/controller/src/modules/monitors/embedded.test.ts",
  "apps/controller/src/modules/alerts/alerts-flow.test.ts",
  mtrFidelity,
];

/**
 * Files that replace a module with `vi.mock`: a mock holds only in a fresh module graph, so these run
 * isolated. Every other file of a project shares its worker's graph with the files before it.
 */
const mocking = testFiles(["apps", "packages"]).filter((f) =>
  /\bvi\.(do)?mock\(/.test(readFileSync(new URL(`./${f}`, import.meta.url), "utf8")),
);

/** The `.test.ts` files under `dirs`, relative to the repository, node_modules left out (not walked). */
function testFiles(dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(new URL(`./${dir}/`, import.meta.url), { withFileTypes: true }).flatMap((e) => {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) return e.name === "node_modules" ? [] : testFiles([path]);
      return e.name.endsWith(".test.ts") ? [path] : [];
    }),
  );
}

/** `VANTAGE_TEST_CPU_PROF=<dir>`: a CPU profile of each test file is written there (docs/testing.md). */
const cpuProfDir = process.env.VANTAGE_TEST_CPU_PROF;
/** `VANTAGE_TEST_CPU_COUNT=<file>`: each test file's CPU, its threads and children included (docs/testing.md). */
const cpuCountFile = process.env.VANTAGE_TEST_CPU_COUNT;

export default defineConfig({
  test: {
    pool: "forks",
    // The longest files first in each project, from a recorded run when this machine has none of its own.
    sequence: { sequencer: LongestFirstSequencer },
    setupFiles: [
      ...(cpuProfDir ? ["packages/testing/src/cpu-profile-setup.ts"] : []),
      ...(cpuCountFile ? ["packages/testing/src/cpu-count-setup.ts"] : []),
    ],
    // Builds the agent and controller bundles the tests start as deployed (packages/testing/src/app-entry.ts).
    globalSetup: ["packages/testing/src/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // A worker imports the code once and runs file after file in that module graph, instead of a new
    // graph per file (the controller's graph took 3–8 s of CPU a file, a third of the suite's CPU). Test
    // files share no state through it: fixtures are made per file (testing/), and a file that mocks a
    // module runs in the `isolated` project below.
    isolate: false,
    reporters: process.env.VITEST_JSON_OUT
      ? ["default", ["json", { outputFile: process.env.VITEST_JSON_OUT }]]
      : ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "main",
          // Four files at a time on two cores: most suites wait on timers, sockets and child processes,
          // so the other files overlap those waits. Two at a time kept 1.2 of the two cores busy (339 s),
          // three 1.6 (274 s), four 1.8 (254 s). Four beside two CPU hogs (a machine twice as slow):
          // 2,511 of 2,511 passed in 386 s (docs/benchmarks.md, 2026-11-30 eleventh session).
          maxWorkers: 4,
          // apps/web/test: real Chromium against an in-process controller (the dashboard, the docs page);
          // they wait on the page, not on the clock, so they share the cores with the rest.
          include: ["apps/*/src/**/*.test.ts", "packages/*/src/**/*.test.ts", "apps/web/test/**/*.test.ts"],
          exclude: [fidelity, ...serial, ...alone, ...mocking, "**/node_modules/**"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: mocking,
          isolate: true,
          // The main project's: vitest runs an isolated project of one worker in a group of its own after
          // every other group (its file ran last, 5 s after the fidelity files), and one with the main
          // project's count beside the main files.
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "serial",
          include: serial,
          exclude: [...mocking, "**/node_modules/**"],
          // Four at a time: they wait far more than they compute (one at a time kept 0.67 of a core busy).
          // Their bounds hold with two CPU hogs beside the four, a machine twice as slow: 394 of 394
          // passed in 139 s (98 s with no hog; three at a time: 117 s; docs/benchmarks.md).
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "alone",
          include: alone,
          exclude: [...mocking, "**/node_modules/**"],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
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
          exclude: [mtrFidelity, ...mocking, "**/node_modules/**"],
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
