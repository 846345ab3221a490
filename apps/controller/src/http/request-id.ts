import { randomBytes } from "node:crypto";

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/;

// Unique without a syscall per request: a random per-process prefix and a counter. Request ids are
// identifiers for logs and support, not secrets.
const processPrefix = randomBytes(6).toString("base64url");
let counter = 0;

export function newRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `req_${processPrefix}${counter.toString(36).padStart(6, "0")}`;
}

/** The caller's `X-Request-Id` when well formed (the first, when Node gives several), else a new id. */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  const id = Array.isArray(incoming) ? incoming[0] : incoming;
  return id !== undefined && wellFormed.test(id) ? id : newRequestId();
}
