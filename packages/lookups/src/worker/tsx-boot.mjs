// @ts-check
// The data worker thread's entry under tsx and vitest (off-thread.ts): a worker does not inherit the
// parent's TypeScript loader (neither `--import tsx` nor vitest's transform reaches it), so it registers
// tsx itself, then loads the TypeScript entry. The built controller starts compile-worker.mjs instead.
import { workerData } from "node:worker_threads";

const { register } = await import("tsx/esm/api");
register();
await import(workerData.entry);
