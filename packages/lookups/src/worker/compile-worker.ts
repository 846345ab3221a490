import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { prepareIpData } from "../ip/database.js";
import { readReputationParts } from "../reputation/data.js";
import type { OffThreadMessage, OffThreadTask } from "./off-thread.js";

/*
 * The data worker thread (started by off-thread.ts): reads, compiles and checks one dataset, then posts it
 * with every typed array's memory in the transfer list, so the event loop receives it without a copy.
 */
const port = parentPort;
if (!port) throw new Error("compile-worker runs as a worker thread (off-thread.ts starts it)");
const post = (message: OffThreadMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

// Below the event loop's priority: on Linux this nices this thread alone (setpriority acts on the calling
// thread), so when the cores are busy the requests go first and the reload takes longer, not they.
try {
  setPriority(10);
} catch {
  // A platform that cannot: the reload then competes as an equal.
}

const { task } = workerData as { task: OffThreadTask };
try {
  const result =
    task.kind === "ip"
      ? await prepareIpData({ ...task.options, onEvent: (event) => post({ event }) })
      : await readReputationParts({ ...task.options, onEvent: (event) => post({ event }) });
  const buffers = new Set<ArrayBuffer>();
  const owned = collect(result, buffers);
  post({ result: owned }, [...buffers]);
} catch (error) {
  post({ error: (error as Error).message });
}

/**
 * `value` with each typed array on an ArrayBuffer of its own, those buffers added to `buffers`: a view into a
 * larger or shared buffer (a pooled Buffer, two views of one file) is copied out first.
 */
function collect<T>(value: T, buffers: Set<ArrayBuffer>): T {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const view = value as unknown as Uint32Array | Uint8Array;
    const buffer = view.buffer as ArrayBuffer;
    if (view.byteOffset === 0 && view.byteLength === buffer.byteLength && !buffers.has(buffer)) {
      buffers.add(buffer);
      return value;
    }
    const copy = new Uint8Array(view.byteLength);
    copy.set(new Uint8Array(buffer, view.byteOffset, view.byteLength));
    buffers.add(copy.buffer);
    const Type = view instanceof Uint32Array ? Uint32Array : Uint8Array;
    return new Type(copy.buffer) as unknown as T;
  }
  if (value instanceof Map) {
    return new Map([...value].map(([k, v]) => [k, collect(v, buffers)])) as unknown as T;
  }
  if (Array.isArray(value)) return value.map((v) => collect(v, buffers)) as unknown as T;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = collect(v, buffers);
    return out as T;
  }
  return value;
}
