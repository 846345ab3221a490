import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * What a reload hands a worker thread: the IP data (prepareIpData) or the reputation files
 * (readReputationParts) to read, compile and check, with the options they take that can cross threads.
 */
export type OffThreadTask =
  | { kind: "ip"; options: { dataDir?: string | undefined; cacheDir: string } }
  | { kind: "reputation"; options: { dir?: string | undefined; cacheDir?: string | undefined } };

/** The worker's messages: events on the way, then one result (its typed arrays transferred) or an error. */
export type OffThreadMessage = { event: unknown } | { result: unknown } | { error: string };

/**
 * Runs `task` on a worker thread of its own (one per reload: reloads are rare, and the thread's memory goes
 * with it) and resolves to what it built, or rejects with the Error message the worker's work threw.
 * The event loop meanwhile only starts the thread and, at the end, receives the result: the reading,
 * parsing and checking happen on the other core.
 */
export function runOffThread(task: OffThreadTask, onEvent?: (event: never) => void): Promise<unknown> {
  const { file, workerData } = workerEntry(task);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void worker.terminate();
    };
    const worker = new Worker(file, { workerData, ...(file.endsWith(".mjs") ? { execArgv: [] } : {}) });
    worker.on("message", (message: OffThreadMessage) => {
      if ("event" in message) onEvent?.(message.event as never);
      else if ("result" in message) settle(() => resolve(message.result));
      else settle(() => reject(new Error(message.error)));
    });
    worker.on("error", (error) => settle(() => reject(error)));
    worker.on("exit", (code) =>
      settle(() => reject(new Error(`the data worker thread exited (code ${code}) without a result`))),
    );
  });
}

/**
 * The worker's entry point: under tsx or vitest (this file is TypeScript) a plain-JavaScript boot that
 * registers tsx in the thread and imports compile-worker.ts; in the built controller, compile-worker.mjs
 * beside the bundle (apps/controller/build.mjs builds it as an entry point and keeps this module's
 * import.meta.url the bundle's: see its `bundleRelative`).
 */
function workerEntry(task: OffThreadTask): { file: string; workerData: unknown } {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    return {
      file: fileURLToPath(new URL("tsx-boot.mjs", here)),
      workerData: { task, entry: new URL("compile-worker.ts", here).href },
    };
  }
  return { file: fileURLToPath(new URL("./compile-worker.mjs", import.meta.url)), workerData: { task } };
}
