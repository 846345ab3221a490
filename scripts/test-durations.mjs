#!/usr/bin/env node
// Writes scripts/test-durations.json (seconds per test file, the longest first) from the JSON report of a
// whole run (`VITEST_JSON_OUT=file`, or scripts/test.sh's): the order a fresh clone's first run takes
// (scripts/test-sequencer.ts). Usage: node scripts/test-durations.mjs <vitest json>
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
const root = new URL("..", import.meta.url).pathname;
const rows = report.testResults
  .map((t) => [relative(root, t.name), Math.round((t.endTime - t.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1]);
writeFileSync(
  new URL("./test-durations.json", import.meta.url),
  `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`,
);
console.log(`${rows.length} files`);
