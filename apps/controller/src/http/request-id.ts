import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { AppEnv } from "./context.js";

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/;

export function newRequestId(): string {
  return `req_${randomBytes(12).toString("base64url")}`;
}

/** Keeps a well-formed incoming X-Request-Id, else makes one; sets it on the response and the child logger. */
export function requestId(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming && wellFormed.test(incoming) ? incoming : newRequestId();
    c.set("requestId", id);
    c.set("log", log.child({ request_id: id }));
    c.header("X-Request-Id", id);
    await next();
    // Error handlers may build a fresh response; make sure it carries the id too.
    c.res.headers.set("X-Request-Id", id);
  };
}
