import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** µs */
  startTime: number;
  endTime: number;
}

export interface ProfileShare {
  name: string;
  percent: number;
}

export interface ProfileSummary {
  /** Busy time of the window (idle excluded), ms. */
  busyMs: number;
  /** Share of the busy time by where the code lives: a package, Node itself, the kernel (syscalls), GC. */
  byArea: ProfileShare[];
  /** Share of the busy time by function (self time). */
  byFunction: ProfileShare[];
}

/** The main thread's profile that `--cpu-prof --cpu-prof-dir=dir` wrote (the largest file in `dir`). */
export function readMainProfile(dir: string): CpuProfile {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => ({ f, size: readFileSync(join(dir, f)).length }))
    .sort((a, b) => b.size - a.size);
  if (!files[0]) throw new Error(`no .cpuprofile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, files[0].f), "utf8")) as CpuProfile;
}

/**
 * Self time of the samples taken between `fromMs` and `toMs` before the profile's end (the process's exit),
 * the idle ones left out: where a busy server spends its CPU during one load phase.
 */
export function summarizeWindow(profile: CpuProfile, fromMs: number, toMs: number, top = 12): ProfileSummary {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  // Sample i was taken at the sum of the deltas up to it; the last sample is the end (the exit).
  const at: number[] = [];
  let end = 0;
  for (const d of profile.timeDeltas) {
    end += d;
    at.push(end);
  }
  const lo = end - fromMs * 1000;
  const hi = end - toMs * 1000;
  const area = new Map<string, number>();
  const fn = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const when = at[i] ?? 0;
    if (when < lo || when > hi) return;
    const frame = frames.get(id);
    if (!frame || frame.functionName === "(idle)") return;
    const d = profile.timeDeltas[i + 1] ?? 0;
    busy += d;
    const a = areaOf(frame);
    area.set(a, (area.get(a) ?? 0) + d);
    const name = `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}`.trim();
    fn.set(name, (fn.get(name) ?? 0) + d);
  });
  const shares = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, percent: busy ? (100 * us) / busy : 0 }));
  return { busyMs: busy / 1000, byArea: shares(area, 8), byFunction: shares(fn, top) };
}

/** Where a frame's code lives: a package, Node itself, WebAssembly, our sources, GC, V8, the kernel. */
export function areaOf(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  const pkg = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith("node:")) return "node (JS)";
  if (url.startsWith("wasm")) return "WebAssembly";
  if (url.includes("/apps/") || url.includes("/packages/")) return "vantage";
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(program)") return "V8 (program)";
  return "native (syscalls, C++)";
}

/** A frame's file: its path in its package, or in the repository. */
export function shortUrl(url: string): string {
  if (!url) return "";
  const pkg = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(.*)$/);
  if (pkg?.[1]) return pkg[1];
  const src = url.match(/\/((?:apps|packages)\/.*)$/);
  return src?.[1] ?? url.replace(/^file:\/\//, "");
}
