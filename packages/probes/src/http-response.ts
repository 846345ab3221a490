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

export interface BodyExcerpt {
  excerpt: string;
  bytes: number;
  truncated: boolean;
}

/** Reads at most MAX_BODY_EXCERPT bytes, then stops reading (destroys the response) rather than drain it. */
export function readExcerpt(res: IncomingMessage): Promise<BodyExcerpt> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = (truncated: boolean) => {
      res.removeAllListeners("data");
      const body = Buffer.concat(chunks).subarray(0, MAX_BODY_EXCERPT);
      resolve({ excerpt: new TextDecoder("utf-8").decode(body), bytes, truncated });
    };
    res.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes > MAX_BODY_EXCERPT) {
        done(true);
        res.destroy();
      }
    });
    res.once("end", () => done(false));
    res.once("error", reject);
  });
}
