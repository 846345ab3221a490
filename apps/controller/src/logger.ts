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

/** A batch is written once it holds this many characters … */
const BATCH_CHARS = 16 * 1024;
/** … or this long after its first line, whichever comes first. */
const BATCH_MS = 50;

/**
 * Collects log lines and passes them on as one write: once 16 KiB are waiting or 50 ms after the first,
 * whichever comes first. Under load that is one write for a hundred access-log lines instead of one per
 * event-loop turn (each a trip through libuv's thread pool: a tenth of a small route's CPU); a quiet
 * server's lines are out within 50 ms. Lines still waiting when the process exits are written then.
 */
export class TurnBatch implements DestinationStream {
  private pending: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly sink: FileSink) {
    // Lines not yet written must not be lost when the process exits (pino flushes the sink itself).
    process.once("exit", () => this.flushSync());
  }

  write(line: string): void {
    this.pending.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.drain();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.drain, BATCH_MS);
      this.timer.unref();
    }
  }

  private readonly drain = (): void => {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    this.chars = 0;
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
