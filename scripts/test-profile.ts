// Sums the per-file CPU profiles a test run wrote with VANTAGE_TEST_CPU_PROF=<dir> (docs/testing.md): the
// busy CPU of each test file's worker, the most expensive files, and where the time went across them (by
// package and by function, time including callees; areas as bench/lib/cpu-profile.ts names them).
// Usage: node --import tsx scripts/test-profile.ts <dir> [top]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { areaOf, type CpuProfile, shortUrl } from "../bench/lib/cpu-profile.js";

const [dir, topArg] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node --import tsx scripts/test-profile.ts <dir of .cpuprofile files> [top]");
  process.exit(2);
}
const top = Number(topArg ?? 25);

const files: { file: string; busy: number; wall: number }[] = [];
const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
let busyAll = 0;
for (const name of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const profile = JSON.parse(readFileSync(join(dir, name), "utf8")) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (nodes.get(id)?.callFrame.functionName === "(idle)") return;
    busy += us;
    // Inclusive: each area and function on the stack counts once per sample.
    const areas = new Set<string>();
    const fns = new Set<string>();
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const frame = nodes.get(x)?.callFrame;
      if (!frame) break;
      areas.add(areaOf(frame));
      if (frame.functionName && frame.functionName !== "(root)")
        fns.add(`${frame.functionName} ${shortUrl(frame.url)}`.trim());
    }
    for (const a of areas) add(byArea, a, us);
    for (const f of fns) add(byFunction, f, us);
  });
  busyAll += busy;
  const wall = (profile.endTime - profile.startTime) / 1e6;
  files.push({ file: name.replace(/\.cpuprofile$/, "").replaceAll("__", "/"), busy: busy / 1e6, wall });
}
const s = (us: number) => (us / 1e6).toFixed(1).padStart(8);
const pct = (us: number) => `${((100 * us) / busyAll).toFixed(1).padStart(5)} %`;
console.log(`${files.length} files, busy CPU of the test workers ${s(busyAll)} s in all\n`);
console.log("busy s   wall s  file (the most CPU)");
for (const f of files.sort((a, b) => b.busy - a.busy).slice(0, top))
  console.log(`${f.busy.toFixed(1).padStart(6)} ${f.wall.toFixed(1).padStart(8)}  ${f.file}`);
for (const [title, map, n] of [
  ["by package (including callees)", byArea, 20],
  ["by function (including callees)", byFunction, top * 2],
] as const) {
  console.log(`\n${title}`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n))
    console.log(`${s(v)} s ${pct(v)}  ${k}`);
}
