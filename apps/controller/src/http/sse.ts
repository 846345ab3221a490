import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { AppEnv } from "./context.js";

/**
 * Server-Sent Events, both ends of the wire format: `sseResponse` answers a request with a stream of
 * events (each `event:`, one `data:` line of JSON and an `id:` sequence number), with `: keep-alive`
 * comment lines in between; `SseParser` reads such a stream back (tests, benchmarks, clients).
 */

/** True when the request's `Accept` header names `text/event-stream` (with a non-zero `q`, if any). */
export function wantsEventStream(c: Context): boolean {
  const accept = c.req.header("accept");
  if (!accept) return false;
  return accept.split(",").some((range) => {
    const [type, ...params] = range.split(";").map((p) => p.trim().toLowerCase());
    if (type !== "text/event-stream") return false;
    const q = params.find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export interface SseSink {
  /**
   * Writes one event with the next sequence number as its id. `json` is the data as one line of JSON text
   * (what `JSON.stringify` gives without indentation: line breaks inside strings are escaped), so many
   * streams can share one serialisation.
   */
  send(event: string, json: string): Promise<void>;
  /** True once the client has gone away. */
  readonly aborted: boolean;
}

export interface SseOptions {
  /** Milliseconds between `: keep-alive` comment lines while the stream is open. */
  heartbeatMs: number;
  /** Called once when the client goes away before `run` has finished. */
  onAbort?: () => void;
  /** Told about an error `run` threw; the stream then ends (its headers were sent long ago). */
  onError?: (err: unknown) => void;
}

/**
 * Answers `200 text/event-stream` at once and runs `run`; the response ends when `run` resolves. Headers
 * already set on `c` (request id, rate-limit headers) go with it. Proxies are asked not to buffer it.
 */
export function sseResponse(
  c: Context<AppEnv>,
  opts: SseOptions,
  run: (sink: SseSink) => Promise<void>,
): Response {
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    let seq = 0;
    const heartbeat = setInterval(() => {
      void stream.write(": keep-alive\n\n");
    }, opts.heartbeatMs);
    stream.onAbort(() => {
      clearInterval(heartbeat);
      opts.onAbort?.();
    });
    const sink: SseSink = {
      async send(event, json) {
        if (stream.aborted) return;
        if (/[\r\n]/.test(event)) throw new Error("an SSE event name must be one line");
        seq += 1;
        await stream.write(`event: ${event}\ndata: ${json}\nid: ${seq}\n\n`);
      },
      get aborted() {
        return stream.aborted;
      },
    };
    try {
      await run(sink);
    } catch (err) {
      opts.onError?.(err);
    } finally {
      clearInterval(heartbeat);
    }
  });
}

/** One event as a client reads it; `comment` holds a comment line's text (e.g. `keep-alive`) instead. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
  comment?: string;
}

/**
 * Incremental SSE reader: feed it text as it arrives, get the complete events (and comment lines) back.
 * Follows the format's rules for what it needs here: `\n`, `\r\n` or `\r` line ends, a blank line ends an
 * event, several `data:` lines join with `\n`, one space after the colon is dropped, `event` defaults to
 * `message`.
 */
export class SseParser {
  private buffer = "";
  private event = "";
  private data: string[] = [];
  private id: string | undefined;

  /** The stream has ended: a last lone `\r` was a line end after all. */
  end(): SseEvent[] {
    return this.buffer.endsWith("\r") ? this.push("\n") : [];
  }

  push(text: string): SseEvent[] {
    this.buffer += text;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      // A lone `\r` at the end may be the first half of `\r\n`: wait for more.
      if (!m || (m[0] === "\r" && m.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      if (line === "") {
        if (this.data.length > 0 || this.event !== "")
          out.push({ event: this.event || "message", data: this.data.join("\n"), id: this.id });
        this.event = "";
        this.data = [];
        this.id = undefined;
        continue;
      }
      const colon = line.indexOf(":");
      if (colon === 0) {
        out.push({ event: "", data: "", id: undefined, comment: line.slice(1).trimStart() });
        continue;
      }
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") this.event = value;
      else if (field === "data") this.data.push(value);
      else if (field === "id") this.id = value;
    }
    return out;
  }
}

/** Reads the events of a stream's body one at a time (a client's side: tests, benchmarks, the CLI). */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly parser = new SseParser();
  private readonly ready: SseEvent[] = [];
  private ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event (comment lines too, with `comments`); undefined once the stream has ended. */
  async next(opts: { comments?: boolean } = {}): Promise<SseEvent | undefined> {
    for (;;) {
      const e = this.ready.shift();
      if (e) {
        if (e.comment !== undefined && !opts.comments) continue;
        return e;
      }
      if (this.ended) return undefined;
      const { done, value } = await this.reader.read();
      if (done) {
        this.ended = true;
        this.ready.push(...this.parser.push(this.decoder.decode()), ...this.parser.end());
      } else this.ready.push(...this.parser.push(this.decoder.decode(value, { stream: true })));
    }
  }

  /** Every event up to the end of the stream. */
  async rest(opts: { comments?: boolean } = {}): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    for (let e = await this.next(opts); e; e = await this.next(opts)) out.push(e);
    return out;
  }

  /** Goes away mid-stream, as a client closing the connection. */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}
