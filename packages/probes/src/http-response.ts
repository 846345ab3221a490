import type { IncomingMessage } from "node:http";

export const MAX_HEADERS = 64;
export const MAX_HEADER_VALUE = 1024;
export const MAX_BODY_EXCERPT = 10 * 1024;

/**
 * Response headers with lower-case names, repeats joined by ", " as RFC 9110 allows, at most MAX_HEADERS
 * names and MAX_HEADER_VALUE characters per value: a hostile server cannot inflate the stored result.
 */
export function cappedHeaders(rawHeaders: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  let count = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? "").toLowerCase();
    const value = rawHeaders[i + 1] ?? "";
    const existing = out[name];
    if (existing === undefined) {
      if (count >= MAX_HEADERS) continue;
      count++;
      out[name] = value.slice(0, MAX_HEADER_VALUE);
    } else if (existing.length < MAX_HEADER_VALUE) {
      out[name] = `${existing}, ${value}`.slice(0, MAX_HEADER_VALUE);
    }
  }
  return out;
}

/**
 * A header value as UTF-8 when its bytes are valid UTF-8. Node hands header values over as latin1 (one char
 * per byte), so a raw `Location: /\xC3\xA9` arrives as "/Ã©"; browsers and curl read those bytes as "/é".
 */
export function utf8HeaderValue(value: string): string {
  let nonAscii = false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // Above U+00FF the value did not come from bytes read as latin1: nothing to re-interpret.
    if (code > 0xff) return value;
    if (code > 0x7f) nonAscii = true;
  }
  if (!nonAscii) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(value, "latin1"));
  } catch {
    return value; // not UTF-8: keep the latin1 reading, as browsers do
  }
}

export interface BodyExcerpt {
  excerpt: string;
  /** What HttpResult.body_bytes reports; see there. */
  bytes: number;
  /** More than MAX_BODY_EXCERPT bytes arrived: the excerpt is not the whole body. */
  truncated: boolean;
  /** Reading stopped at the read cap, before the body's end. */
  capped: boolean;
  /** The bytes read, at most the read cap (the whole body when not `capped`). */
  read: Buffer;
}

export interface BodyReader {
  /** The whole body, or what was read once reading stopped at the cap. */
  done: Promise<BodyExcerpt>;
  /** What arrived so far, for the partial result of a read that failed or ran out of time midway. */
  soFar: () => BodyExcerpt;
}

/**
 * Reads at most `readCap` bytes (the excerpt's MAX_BODY_EXCERPT unless a caller needs more of the body),
 * then stops reading (destroys the response) rather than drain it. When it stops early, the declared
 * Content-Length is the body's size; without one, only the bytes received before stopping are known (how
 * many depends on chunking, so it is a lower bound, past the cap).
 */
export function readExcerpt(res: IncomingMessage, readCap = MAX_BODY_EXCERPT): BodyReader {
  const chunks: Buffer[] = [];
  let received = 0;
  const declared = declaredLength(res.headers["content-length"]);
  const snapshot = (capped: boolean): BodyExcerpt => {
    const read = Buffer.concat(chunks).subarray(0, readCap);
    return {
      excerpt: new TextDecoder("utf-8").decode(read.subarray(0, MAX_BODY_EXCERPT)),
      bytes: capped && declared !== null ? declared : received,
      truncated: received > MAX_BODY_EXCERPT,
      capped,
      read,
    };
  };
  const done = new Promise<BodyExcerpt>((resolve, reject) => {
    const finish = (capped: boolean) => {
      res.removeAllListeners("data");
      resolve(snapshot(capped));
    };
    res.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received > readCap) {
        finish(true);
        res.destroy();
      }
    });
    res.once("end", () => finish(false));
    // `on`, not `once`: a second error with no listener would be thrown, and end the process.
    res.on("error", reject);
  });
  return { done, soFar: () => snapshot(false) };
}

/** A Content-Length of plain digits as a number; anything else counts as none. */
function declaredLength(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}
