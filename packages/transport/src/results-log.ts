import type { NatsConnection } from "@nats-io/transport-node";
import { resultsLog } from "@vantage/protocol";

/**
 * The write-ahead log of answered Form B tasks (ADR 0012): a JetStream stream on the controllers' NATS.
 * A controller appends each finished task to its own subject (`vantage.results.v1.<controller id>`) and
 * waits for the stream's ack before it answers. Appends are group-committed: one message is in flight at a
 * time, and the records appended meanwhile go together in the next (a JSON array per message), so a quiet
 * controller pays one round trip per task and a busy one far fewer messages than tasks; once its result writer has stored the task in PostgreSQL it
 * purges its subject up to there (one request per batch, no consumer). What a killed controller left on its
 * subject is read back and stored by another controller, which then purges that subject.
 *
 * Only plain requests on the JetStream API are used (no client library): `STREAM.CREATE`/`UPDATE` at
 * start-up, a publish with a reply per task, `STREAM.PURGE`, and `STREAM.INFO`/`STREAM.MSG.GET` to drain.
 * The controller's NATS user must be allowed those subjects (`controllerPermissions`).
 */

export const RESULTS_STREAM = resultsLog.stream;
const PREFIX = resultsLog.subject("");

export interface LoggedRecord {
  seq: number;
  record: unknown;
}

export interface ResultsLog {
  /**
   * Appends a record to this controller's subject; resolves with the stream sequence of the message that
   * holds it once stored (records appended together share one).
   */
  append(record: unknown): Promise<number>;
  /** Drops controller `controllerId`'s records below sequence `below` (they are in PostgreSQL). */
  release(controllerId: string, below: number): Promise<void>;
  /** The controllers with records in the stream, with how many messages each. */
  writers(): Promise<Map<string, number>>;
  /**
   * Controller `controllerId`'s records from sequence `from` on, in order: whole messages until at least
   * `max` records (or the end).
   */
  read(controllerId: string, from: number, max: number): Promise<LoggedRecord[]>;
}

export interface ResultsLogOptions {
  /** This controller's id: its subject. */
  controllerId: string;
  /** How long a record is kept at most, whatever happens (the stream's max age). */
  maxAgeMs: number;
  /** How long one request to JetStream may take before it counts as failed. */
  timeoutMs: number;
}

interface ApiError {
  error?: { code?: number; err_code?: number; description?: string };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const STREAM_NAME_IN_USE = 10058;
const NO_MESSAGE_FOUND = 10037;
/** A group-committed message stays well under nats-server's default max_payload (1 MiB). */
const MAX_MESSAGE_BYTES = 256 * 1024;

export class ResultsLogError extends Error {
  constructor(
    message: string,
    readonly errCode?: number,
  ) {
    super(message);
    this.name = "ResultsLogError";
  }
}

/**
 * Creates (or updates) the stream and returns the log; rejects when JetStream is not there (a server
 * without it answers no one: `no responders`), the user may not use it (the request times out), or the
 * server refuses the stream.
 */
export async function openResultsLog(nc: NatsConnection, opts: ResultsLogOptions): Promise<ResultsLog> {
  const api = async <T>(subject: string, body: unknown): Promise<T & ApiError> => {
    const msg = await nc.request(subject, encoder.encode(JSON.stringify(body)), { timeout: opts.timeoutMs });
    const answer = JSON.parse(decoder.decode(msg.data)) as T & ApiError;
    return answer;
  };
  const fail = (what: string, a: ApiError) =>
    new ResultsLogError(`${what}: ${a.error?.description ?? "refused"}`, a.error?.err_code);

  const config = {
    name: RESULTS_STREAM,
    subjects: [resultsLog.allSubjects],
    retention: "limits",
    storage: "file",
    discard: "old",
    num_replicas: 1,
    max_age: opts.maxAgeMs * 1_000_000,
    duplicate_window: Math.min(opts.maxAgeMs, 120_000) * 1_000_000,
  };
  let created = await api(resultsLog.api("CREATE"), config);
  if (created.error?.err_code === STREAM_NAME_IN_USE) created = await api(resultsLog.api("UPDATE"), config);
  if (created.error) throw fail(`stream ${RESULTS_STREAM} not created`, created);

  const own = resultsLog.subject(opts.controllerId);
  const waiting: { json: string; resolve: (seq: number) => void; reject: (err: Error) => void }[] = [];
  let inFlight = false;
  const sendNext = () => {
    if (inFlight || waiting.length === 0) return;
    let bytes = 0;
    let n = 0;
    while (n < waiting.length && (n === 0 || bytes + waiting[n]!.json.length <= MAX_MESSAGE_BYTES))
      bytes += waiting[n++]!.json.length + 1;
    const batch = waiting.splice(0, n);
    inFlight = true;
    nc.request(own, encoder.encode(`[${batch.map((w) => w.json).join(",")}]`), { timeout: opts.timeoutMs })
      .then((msg) => {
        const ack = JSON.parse(decoder.decode(msg.data)) as { seq?: number } & ApiError;
        if (ack.error || typeof ack.seq !== "number") throw fail("record not stored", ack);
        for (const w of batch) w.resolve(ack.seq);
      })
      .catch((err: Error) => {
        for (const w of batch) w.reject(err);
      })
      .finally(() => {
        inFlight = false;
        sendNext();
      });
  };
  return {
    append(record) {
      return new Promise<number>((resolve, reject) => {
        waiting.push({ json: JSON.stringify(record), resolve, reject });
        sendNext();
      });
    },
    async release(controllerId, below) {
      const a = await api(resultsLog.api("PURGE"), {
        filter: resultsLog.subject(controllerId),
        seq: below,
      });
      if (a.error) throw fail("records not released", a);
    },
    async writers() {
      const info = await api<{ state?: { subjects?: Record<string, number> } }>(resultsLog.api("INFO"), {
        subjects_filter: resultsLog.allSubjects,
      });
      if (info.error) throw fail("stream not read", info);
      const out = new Map<string, number>();
      for (const [subject, n] of Object.entries(info.state?.subjects ?? {}))
        if (subject.startsWith(PREFIX)) out.set(subject.slice(PREFIX.length), n);
      return out;
    },
    async read(controllerId, from, max) {
      const out: LoggedRecord[] = [];
      let seq = from;
      while (out.length < max) {
        const got = await api<{ message?: { seq: number; data?: string } }>(resultsLog.api("MSG.GET"), {
          seq,
          next_by_subj: resultsLog.subject(controllerId),
        });
        if (got.error?.err_code === NO_MESSAGE_FOUND) break;
        if (got.error || !got.message) throw fail("record not read", got);
        const data = JSON.parse(Buffer.from(got.message.data ?? "", "base64").toString("utf8")) as unknown;
        for (const record of Array.isArray(data) ? data : [data]) out.push({ seq: got.message.seq, record });
        seq = got.message.seq + 1;
      }
      return out;
    },
  };
}
