import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger };

/**
 * JSON logs on stdout, the same lines pino writes by default (ISO time, pid, name). Two things keep the
 * per-request access log cheap (it was the largest single cost of a small route):
 * - lines are copied into a buffer as they come and handed to the file writer 64 KiB at a time, or 50 ms
 *   after the first (`TurnBatch`): one write for a few hundred lines under load, prompt lines when it is quiet;
 * - the ISO timestamp is formatted once per millisecond, not once per line.
 * `flushLogger` runs on shutdown and fatal errors; pending lines are also written on process exit.
 */
export function createLogger(level: string, name = "vantage-controller", sink?: FileSink): Logger {
  const file =
    sink ?? (pino.destination({ dest: 1, sync: false, contentMode: "buffer" }) as unknown as FileSink);
  const batch = new TurnBatch(file);
  const log = pino({ name, level, base: { pid: process.pid }, timestamp: cachedIsoTime }, batch);
  ownStreams.set(log, batch);
  return log;
}

/** Loggers made by `createLogger`, whose line format is known, with the stream they write to. */
const ownStreams = new WeakMap<Logger, TurnBatch>();

/**
 * Writes the access log line of one request. `requestId` and `method` go into the line as they are: the
 * core's ids match `[A-Za-z0-9._:-]` and an HTTP method is a token, so neither holds anything JSON escapes.
 * `taskId`: the probe task the request created (`task_id` in the line), so a probe's request and its task
 * can be found from each other.
 */
export type AccessLog = (
  requestId: string,
  method: string,
  path: string,
  status: number,
  ms: number,
  taskId?: string,
) => void;

/**
 * The access log, one line per request at `info`. For a logger from `createLogger` the line is built
 * directly — what `log.info({request_id, method, path, task_id?, status, ms}, "request")` writes, with `ms` rounded
 * to hundredths — because pino's generic serialisation was most of what the access log cost per request:
 * the part up to the request id is made once per millisecond, and `ms` is formatted from whole hundredths
 * (formatting a fraction was a visible share of the line's cost). Any other logger (tests, embedding) gets
 * exactly that `log.info` call.
 */
export function accessLog(log: Logger): AccessLog {
  const stream = ownStreams.get(log);
  if (!stream) {
    return (requestId, method, path, status, ms, taskId) =>
      log.info(
        {
          request_id: requestId,
          method,
          path,
          ...(taskId === undefined ? {} : { task_id: taskId }),
          status,
          ms: Math.round(ms * 100) / 100,
        },
        "request",
      );
  }
  const info = log.levels.values.info ?? 30;
  const head = `{"level":${info}`;
  // pino's serialised bindings of this logger: `,"pid":…,"name":"…"`.
  const bindings = (log as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? "";
  let prefixTime = "";
  let prefix = "";
  return (requestId, method, path, status, ms, taskId) => {
    if (log.levelVal > info) return;
    const time = cachedIsoTime();
    if (time !== prefixTime) {
      prefixTime = time;
      prefix = `${head}${time}${bindings},"request_id":"`;
    }
    const task = taskId === undefined ? "" : `,"task_id":${quote(taskId)}`;
    stream.write(
      `${prefix}${requestId}","method":"${method}","path":${quote(path)}${task},"status":${status},"ms":${hundredths(ms)},"msg":"request"}\n`,
    );
  };
}

/** Printable ASCII but `"` and `\`: a JSON string as it is. */
const plainJson = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `JSON.stringify(s)`, without its cost for the usual path (nothing to escape). */
function quote(s: string): string {
  return plainJson.test(s) ? `"${s}"` : JSON.stringify(s);
}

/** `String(Math.round(ms * 100) / 100)`, from whole numbers (the same text: at most two decimals). */
export function hundredths(ms: number): string {
  const h = Math.round(ms * 100);
  if (!(h >= 0 && h < 2 ** 31)) return String(h / 100);
  const whole = (h / 100) | 0;
  const frac = h - whole * 100;
  if (frac === 0) return `${whole}`;
  if (frac % 10 === 0) return `${whole}.${frac / 10}`;
  return frac < 10 ? `${whole}.0${frac}` : `${whole}.${frac}`;
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

/**
 * The batches whose waiting lines are written when the process exits, through one `exit` listener for all
 * of them: a listener per batch added up in a process that makes many loggers (a test worker running file
 * after file: node's warning at 11), and kept each batch and its buffer alive for good. A batch nothing else
 * holds any more is let go; its lines went out with its timer.
 */
const atExit = new Set<WeakRef<TurnBatch>>();
let exitHooked = false;

function flushAtExit(batch: TurnBatch): void {
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", flushAll);
  }
  for (const ref of atExit) if (ref.deref() === undefined) atExit.delete(ref);
  atExit.add(new WeakRef(batch));
}

function flushAll(): void {
  for (const ref of atExit) ref.deref()?.flushSync();
}

/** sonic-boom in buffer mode: it takes the batches as they are (no string to measure and encode again). */
export interface FileSink {
  write(chunk: Buffer): unknown;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

/** A batch is written once it holds this many bytes … */
const BATCH_BYTES = 64 * 1024;
/** … or this long after its first line, whichever comes first. */
const BATCH_MS = 50;
/** Room past BATCH_BYTES, so the line that crosses it still goes into the buffer. */
const SPARE_BYTES = 4 * 1024;

/**
 * Collects log lines and passes them on as one write: once 64 KiB are waiting or 50 ms after the first,
 * whichever comes first. Under load that is one write for a few hundred access-log lines instead of one per
 * event-loop turn (each a trip through libuv's thread pool: a tenth of a small route's CPU); a quiet
 * server's lines are out within 50 ms. Lines still waiting when the process exits are written then.
 *
 * Each line is encoded into the batch's buffer as it comes: joining a hundred lines into one string and
 * having sonic-boom measure and encode it again cost more than building the lines (a profile of
 * `GET /healthz` under load: 6 % of the process's busy time against under 2 % now).
 */
export class TurnBatch implements DestinationStream {
  private buf = Buffer.allocUnsafe(BATCH_BYTES + SPARE_BYTES);
  private used = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly sink: FileSink) {
    // Lines not yet written must not be lost when the process exits (pino flushes the sink itself).
    flushAtExit(this);
  }

  write(line: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8: only a line that might not fit is measured.
    if (this.used + line.length * 3 > this.buf.length) {
      const bytes = Buffer.byteLength(line);
      if (this.used + bytes > this.buf.length) {
        this.drain();
        if (bytes > this.buf.length) {
          this.sink.write(Buffer.from(line, "utf8"));
          return;
        }
      }
    }
    this.used += this.buf.write(line, this.used, "utf8");
    if (this.used >= BATCH_BYTES) this.drain();
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
    if (this.used === 0) return;
    // The sink keeps what it is handed until written: the next lines go into a new buffer.
    const batch = this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafe(BATCH_BYTES + SPARE_BYTES);
    this.used = 0;
    this.sink.write(batch);
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
