import type { Readable } from "node:stream";
import type { Context } from "hono";
import { findUnstorableText } from "../lib/unstorable-text.js";
import type { AppEnv } from "./context.js";
import { ApiError, fieldError } from "./errors.js";
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES } from "./json-shape.js";

// The same rule as the route validators (@hono/zod-openapi): a JSON type, then only `; name=value`
// parameters. A type they would refuse is refused here, so the answer is always `unsupported_media_type`.
const jsonType = /^application\/([a-z.-]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/**
 * For requests that carry a body: the body must be JSON (415), at most `limit` bytes (413), nest at most
 * `MAX_JSON_DEPTH` levels, hold at most `MAX_JSON_VALUES` values and parse (400). The parsed body is cached
 * by Hono, so the route validators read it without parsing again. Every step is linear in the body's size,
 * whatever its shape: the body is unauthenticated input on every route that takes one.
 */
export async function guardBody(c: Context<AppEnv>, limit: number): Promise<void> {
  const lengthHeader = c.req.header("content-length");
  const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  if (declared === 0 || (!incoming && c.req.raw.body === null)) return;
  if (declared !== undefined && declared > limit) {
    throw new ApiError("payload_too_large", `request body is over the ${limit}-byte limit`);
  }
  const encoding = c.req.header("content-encoding");
  if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) {
    throw new ApiError(
      "unsupported_media_type",
      `Content-Encoding "${encoding.slice(0, 40)}" is not supported: send the body uncompressed`,
    );
  }
  const type = c.req.header("content-type");
  const isJson = type !== undefined && jsonType.test(type);
  const notJson = () =>
    new ApiError(
      "unsupported_media_type",
      "request body must be JSON (Content-Type: application/json, parameters as `; charset=utf-8`)",
    );
  if (!isJson && declared !== undefined) throw notJson();
  // Without a declared length the body may still be empty (`curl -X POST` with no data): read it first.
  const raw = incoming ? await readIncoming(incoming, limit) : await readLimited(c.req.raw, limit);
  // The stream is spent: whatever reads the body later (a blank one included) reads it from the cache.
  const cache = (c.req as unknown as { bodyCache: Record<string, unknown> }).bodyCache;
  cache.text = Promise.resolve(raw);
  if (raw.trim() === "") return;
  if (!isJson) throw notJson();
  // Before parsing, so nothing deeper or wider than the limits is built, walked or validated.
  const problem = jsonShapeProblem(raw);
  if (problem !== undefined) {
    const message =
      problem === "too_deep"
        ? `JSON must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`
        : `JSON must not hold more than ${MAX_JSON_VALUES} values (array elements and object members, nested ones included)`;
    throw fieldError("body", message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
    // Seed Hono's body cache so validators and handlers see the parsed value.
    cache.json = Promise.resolve(parsed);
  } catch {
    throw new ApiError("malformed_json", "request body is not valid JSON");
  }
  // Checked for every body, whatever the route: PostgreSQL could not store such text (a 500 otherwise).
  const bad = findUnstorableText(parsed);
  if (bad !== undefined) {
    const path = bad === "" ? "body" : `body.${bad}`;
    const message = "must not contain U+0000 or an unpaired UTF-16 surrogate";
    throw fieldError(path, message);
  }
}

interface NodeBindings {
  incoming?: Readable;
}

/**
 * Under @hono/node-server: reads Node's request stream itself. Going through `c.req.raw.body` makes the
 * server build a full WHATWG Request and a web stream for every body, a tenth of the CPU of a probe
 * request. Every later body read goes through Hono's body cache seeded above, never the raw stream.
 */
function readIncoming(incoming: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // The rest is left unread; the server drains or drops it once the 413 is sent.
        incoming.pause();
        reject(new ApiError("payload_too_large", `request body is over the ${limit}-byte limit`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size).toString("utf8"));
    };
    // The client went away mid-body: its mistake (or its network's), not ours; nobody reads the answer.
    const ended = () =>
      new ApiError("malformed_request", "the client closed the connection before the request body ended");
    const onError = () => {
      cleanup();
      reject(ended());
    };
    const onClose = () => {
      cleanup();
      reject(ended());
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

async function readLimited(req: Request, limit: number): Promise<string> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new ApiError("payload_too_large", `request body is over the ${limit}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
