import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { Logger } from "pino";
import type { AppEnv } from "./context.js";

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/;

// Unique without a syscall per request: a random per-process prefix and a counter. Request ids are
// identifiers for logs and support, not secrets.
const processPrefix = randomBytes(6).toString("base64url");
let counter = 0;

export function newRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `req_${processPrefix}${counter.toString(36).padStart(6, "0")}`;
}

interface NodeBindings {
  outgoing?: { headersSent: boolean; setHeader(name: string, value: string): unknown };
}

/**
 * Keeps a well-formed incoming X-Request-Id, else makes one, and sets it on the response. The per-request
 * child logger is created only when something logs (creating one per request costs real throughput).
 *
 * Under @hono/node-server the header goes straight onto Node's response object, which merges it into
 * whatever the handler answers (errors and 404s included). `c.header()` before the handler would turn the
 * response's plain header object into a WHATWG `Headers`, which the server then has to convert back: that
 * round trip cost about a tenth of a small route's throughput. Elsewhere (`app.request` in tests, other
 * runtimes) `c.header()` does the job.
 */
export function assignRequestId(c: Context<AppEnv>, log: Logger): string {
  const incoming = c.req.header("x-request-id");
  const id = incoming && wellFormed.test(incoming) ? incoming : newRequestId();
  c.set("requestId", id);
  c.set("log", lazyChild(log, id));
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent) {
    outgoing.setHeader("X-Request-Id", id);
  } else {
    c.header("X-Request-Id", id);
  }
  return id;
}

function lazyChild(log: Logger, id: string): Logger {
  let child: Logger | undefined;
  return new Proxy(log, {
    get(target, prop) {
      child ??= target.child({ request_id: id });
      const value = Reflect.get(child, prop, child) as unknown;
      return typeof value === "function" ? value.bind(child) : value;
    },
  });
}
