import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger };

/**
 * JSON logs on stdout, the same lines pino writes by default (ISO time, pid, name). Two things keep the
 * per-request access log cheap (it was the largest single cost of a small route):
 * - lines are collected per event-loop turn and handed to the file writer as one string (`TurnBatch`);
 *   sonic-boom measures its pending buffer on every write, which under load turned each line into a copy of
 *   up to 16 KiB, and a write per turn still keeps lines prompt when traffic is low;
 * - the ISO timestamp is formatted once per millisecond, not once per line.
 * `flushLogger` runs on shutdown and fatal errors; pending lines are also written on process exit.
 */
export function createLogger(level: string, name = "vantage-controller"): Logger {
  const file = pino.destination({ dest: 1, sync: false });
  const batch = new TurnBatch(file);
  const log = pino({ name, level, base: { pid: process.pid }, timestamp: cachedIsoTime }, batch);
  ownStreams.set(log, batch);
  return log;
}

/** Loggers made by `createLogger`, whose line format is known, with the stream they write to. */
const ownStreams = new WeakMap<Logger, TurnBatch>();

/** Writes the access log line of one request. */
export type AccessLog = (requestId: string, method: string, path: string, status: number, ms: number) => void;

/**
 * The access log, one line per request at `info`. For a logger from `createLogger` the line is built
 * directly — byte for byte what `log.info({request_id, method, path, status, ms}, "request")` writes —
 * because pino's generic serialisation was most of what the access log cost per request. Any other logger
 * (tests, embedding) gets exactly that `log.info` call.
 */
export function accessLog(log: Logger): AccessLog {
  const stream = ownStreams.get(log);
  if (!stream) {
    return (requestId, method, path, status, ms) =>
      log.info({ request_id: requestId, method, path, status, ms }, "request");
  }
  const info = log.levels.values.info ?? 30;
  const head = `{"level":${info}`;
  // pino's serialised bindings of this logger: `,"pid":…,"name":"…"`.
  const bindings = (log as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? "";
  return (requestId, method, path, status, ms) => {
    if (log.levelVal > info) return;
    stream.write(
      `${head}${cachedIsoTime()}${bindings},"request_id":${JSON.stringify(requestId)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`,
    );
  };
}

export function flushLogger(log: Logger): void {
  try {
    log.flush();
  } catch {
    // nothing left to do with a broken stdout
  }
}

let lastMs = -1;
let lastTime = "";

/** `pino.stdTimeFunctions.isoTime`, computed at most once per millisecond. */
export function cachedIsoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

interface FileSink extends DestinationStream {
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

/** Collects lines during one event-loop turn and passes them on as one write. */
export class TurnBatch implements DestinationStream {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly sink: FileSink) {
    // Lines of the last turn must not be lost when the process exits (pino flushes the sink itself).
    process.once("exit", () => this.flushSync());
  }

  write(line: string): void {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    this.sink.write(lines.length === 1 ? lines[0]! : lines.join(""));
  };

  /** pino's `logger.flush()` lands here. */
  flush(cb?: (err?: Error) => void): void {
    this.drain();
    this.sink.flush(cb);
  }

  flushSync(): void {
    this.drain();
    try {
      this.sink.flushSync();
    } catch {
      // sonic-boom throws when nothing is open or stdout is gone; there is nowhere left to write
    }
  }
}
