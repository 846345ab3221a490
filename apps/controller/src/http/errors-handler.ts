import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { describeDbError, isDatabaseUnavailable } from "../db/availability.js";
import { type AppEnv, logOf, requestIdOf } from "./context.js";
import { ApiError, errorBody, unavailableError } from "./errors.js";

/** Maps anything thrown to the error envelope; unexpected errors are logged and become a bare 500. */
export function handleError(thrown: Error, c: Context<AppEnv>): Response {
  const requestId = requestIdOf(c);
  let err = thrown;
  if (isDatabaseUnavailable(err)) {
    // The outage is logged once when it begins and once when it ends (the availability gate's change,
    // runtime.ts); each request it refuses adds a short debug line, never a stack: at warn with its stack,
    // every refused request wrote kilobytes, 7–11 KB/s per controller during an outage.
    logOf(c)?.debug(
      { method: c.req.method, path: c.req.path, db_error: describeDbError(err) },
      "database unavailable: answered 503",
    );
    err = unavailableError("the database is unavailable; try again shortly");
  }
  if (err instanceof ApiError) {
    const res = c.json(errorBody(err.code, err.message, requestId, err.details), err.status);
    for (const [k, v] of Object.entries(err.headers ?? {})) res.headers.set(k, v);
    if (err.status === 401 && !res.headers.has("WWW-Authenticate"))
      res.headers.set("WWW-Authenticate", "Bearer");
    return res;
  }
  if (err instanceof HTTPException) {
    // Hono's own validators and middleware: keep the status, give it the envelope.
    const status = err.status;
    const code =
      status === 400
        ? "malformed_json"
        : status === 413
          ? "payload_too_large"
          : status === 415
            ? "unsupported_media_type"
            : status === 401
              ? "unauthorized"
              : "validation_error";
    if (status >= 400 && status < 500) {
      return c.json(errorBody(code, err.message || "bad request", requestId), status);
    }
  }
  const log = logOf(c);
  log?.error({ err, method: c.req.method, path: c.req.path }, "unhandled error");
  return c.json(
    errorBody("internal_error", "internal error; quote the request id when reporting it", requestId),
    500,
  );
}
