#!/usr/bin/env node
// Writes scripts/test-durations.json (seconds per test file, the longest first), the order a fresh clone's
// first run takes (scripts/test-sequencer.ts), from the output of a whole run (`npm test > log`): the
// default reporter's line per file, "✓ <project> <file> (N tests) <ms>ms", whose time counts the file's
// hooks too (a JSON report's start and end times leave out its beforeAll and afterAll, 30 s for some
// end-to-end files). Usage: node scripts/test-durations.mjs <log of a whole run>
import { readFileSync, writeFileSync } from "node:fs";

// The colours of a terminal's run taken out (ESC [ … m).
const log = readFileSync(process.argv[2], "utf8").replace(
  new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"),
  "",
);
const seconds = {};
for (const m of log.matchAll(/^ [✓❯×] +\S+ +(\S+\.test\.ts) \(\d+ tests?[^)]*\) (\d+)ms$/gm))
  seconds[m[1]] = Math.round(Number(m[2]) / 100) / 10;
const rows = Object.entries(seconds).sort((a, b) => b[1] - a[1]);
if (rows.length === 0) throw new Error(`no per-file lines in ${process.argv[2]}`);
writeFileSync(
  new URL("./test-durations.json", import.meta.url),
  `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`,
);
console.log(`${rows.length} files`);
