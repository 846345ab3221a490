import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { Logger } from "pino";
import type { AppEnv } from "./context.js";
import { setResponseHeader } from "./response-headers.js";

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/;

// Unique without a syscall per request: a random per-process prefix and a counter. Request ids are
// identifiers for logs and support, not secrets.
const processPrefix = randomBytes(6).toString("base64url");
let counter = 0;

export function newRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `req_${processPrefix}${counter.toString(36).padStart(6, "0")}`;
}

/**
 * Keeps a well-formed incoming X-Request-Id, else makes one, and sets it on the response. The per-request
 * child logger is created only when something logs (creating one per request costs real throughput).
 * The header goes out with whatever the handler answers, errors and 404s included (`setResponseHeader`).
 */
export function assignRequestId(c: Context<AppEnv>, log: Logger): string {
  const incoming = c.req.header("x-request-id");
  const id = incoming && wellFormed.test(incoming) ? incoming : newRequestId();
  c.set("requestId", id);
  c.set("log", lazyChild(log, id));
  setResponseHeader(c, "X-Request-Id", id);
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
