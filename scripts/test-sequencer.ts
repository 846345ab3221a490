import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds each test file took in a whole run (`node scripts/test-durations.mjs <log>` writes it), for
 * the files a run has no timing of its own for: a fresh clone's first run (CI, a newcomer's `npm test`).
 */
const recorded: Record<string, number> = JSON.parse(
  readFileSync(new URL("./test-durations.json", import.meta.url), "utf8"),
);

/**
 * Files that start before the longest ones of their project, in this order. The serial project's longest
 * files by recorded time (hostile-network, monitors, honest-state, fuzz-netns) spend much of it starting
 * processes: four at once held both cores for the project's first 40 s, and each start took three times
 * what it takes alone. monitors.e2e and mtr's fidelity start little and then wait a minute on timers and
 * replies, so they go first and the heavy starts share the cores with them, not with each other: the
 * serial project alone took 104 s in this order against 115–118 s longest first (2026-12-01, docs/testing.md).
 */
const leading = [
  "apps/controller/src/e2e/monitors.e2e.test.ts",
  "packages/netlab/src/fidelity/mtr.test.ts",
  "apps/controller/src/e2e/hostile-network.e2e.test.ts",
  "apps/controller/src/e2e/honest-state.e2e.test.ts",
];

/**
 * Longest files first within each project (after the leading files above), so that a long file does not start last and run on its own
 * while the other worker is idle (a 62 s file started last held the serial group 35 s past its share).
 * Vitest's own order does this only from its cache of an earlier run on the machine; without one it runs
 * the largest files first, which are not the longest. A file's time is the cache's when it has one, else
 * the recorded one, else 5 s (a new file). Groups, projects and failed-first are kept as vitest orders them.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const info = new Map(
      files.map((f) => {
        const path = relative(root, f.moduleId);
        const cached = cache.getFileTestResults(`${f.project.name}:${path}`);
        const seconds = cached ? cached.duration / 1000 : (recorded[path] ?? 5);
        const lead = leading.indexOf(path);
        return [f, { seconds, failed: cached?.failed ?? false, lead: lead < 0 ? leading.length : lead }];
      }),
    );
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const ia = info.get(a) ?? { seconds: 0, failed: false, lead: leading.length };
      const ib = info.get(b) ?? { seconds: 0, failed: false, lead: leading.length };
      if (ia.failed !== ib.failed) return ia.failed ? -1 : 1;
      if (ia.lead !== ib.lead) return ia.lead - ib.lead;
      return ib.seconds - ia.seconds;
    });
  }
}
