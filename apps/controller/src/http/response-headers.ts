import type { Context } from "hono";

interface NodeBindings {
  outgoing?: { setHeader?: (name: string, value: string) => unknown; headersSent?: boolean };
}

/**
 * Sets a response header from middleware or a handler. Under @hono/node-server it goes straight onto
 * Node's response object, which merges it into whatever the handler answers (errors included):
 * `c.header()` would turn the response's plain header object into a WHATWG `Headers` that the server then
 * converts back, about a tenth of a small route's throughput. Elsewhere (`app.request` in tests, other
 * runtimes) `c.header()` does the job.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent) {
    outgoing.setHeader(name, value);
  } else {
    c.header(name, value);
  }
}
