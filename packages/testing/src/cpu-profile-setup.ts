import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { relative } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

/**
 * A setup file the config adds when `VANTAGE_TEST_CPU_PROF=<dir>` is set: a V8 CPU profile of each test
 * file, from its first `beforeAll` to its last `afterAll`, written to `<dir>/<file path with __>.cpuprofile`
 * (`node --import tsx scripts/test-profile.ts <dir>` sums them). One inspector session per worker, reused by every file
 * the worker runs. Importing the file and collecting its tests come before and are not in the profile.
 */
const dir = process.env.VANTAGE_TEST_CPU_PROF;
if (dir) {
  const shared = globalThis as { __vantageProfiler?: Promise<Session> };
  shared.__vantageProfiler ??= (async () => {
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    // 2 ms between samples: a whole suite's profiles stay small, and a file's share is still exact enough.
    await session.post("Profiler.setSamplingInterval", { interval: 2000 });
    return session;
  })();
  const session = shared.__vantageProfiler;
  beforeAll(async () => {
    await (await session).post("Profiler.start");
  });
  afterAll(async () => {
    const { profile } = await (await session).post("Profiler.stop");
    const file = relative(process.cwd(), expect.getState().testPath ?? "unknown").replaceAll("/", "__");
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/${file}.cpuprofile`, JSON.stringify(profile));
  });
}
