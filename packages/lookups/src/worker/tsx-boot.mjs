// @ts-check
// The data worker thread's entry under tsx and vitest (off-thread.ts): a worker does not inherit the
// parent's TypeScript loader (neither `--import tsx` nor vitest's transform reaches it), so it registers
// tsx itself, then loads the TypeScript entry. The built controller starts compile-worker.mjs instead.
import { setPriority } from "node:os";
import { workerData } from "node:worker_threads";

// Niced before loading tsx, as compile-worker.ts nices itself: the loading is the costly part here.
try {
  setPriority(10);
} catch {}

const { register } = await import("tsx/esm/api");
register();
await import(workerData.entry);
