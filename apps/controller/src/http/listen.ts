import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type RequestListener,
  type Server,
  type ServerOptions,
  ServerResponse,
} from "node:http";
import { serve } from "@hono/node-server";
import type { Logger } from "pino";
import { guardServerEdges, originFormOnly } from "./server-edges.js";

export interface Listening {
  /** `http://host:port` as bound (the real port when 0 was asked for). */
  url: string;
  /**
   * Stops accepting connections, lets requests in flight finish for up to `graceMs` (idle keep-alive
   * connections are closed as they go quiet), then cuts what is left; resolves when the server is closed.
   */
  close(): Promise<void>;
}

/** The api role's HTTP server: Node's own server, with requests whose target is not a path answered first. */
export function listen(opts: {
  fetch: (request: Request) => Response | Promise<Response>;
  host: string;
  port: number;
  graceMs: number;
  log: Logger;
  /** Tried first for each request: true when it answered (`directListener`, `http/direct-routes.ts`). */
  direct?: (req: IncomingMessage, res: ServerResponse) => boolean;
}): Promise<Listening> {
  const { direct } = opts;
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: opts.fetch,
        hostname: opts.host,
        port: opts.port,
        createServer: ((options: ServerOptions, listener: RequestListener) =>
          createServer<typeof IncomingMessage, typeof ServerResponse>(
            { ...options, ServerResponse: CoreResponse as typeof ServerResponse },
            originFormOnly(direct ? (req, res) => direct(req, res) || listener(req, res) : listener),
          )) as unknown as typeof createServer,
      },
      (info) => {
        server.off("error", reject);
        const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
        resolve({ url: `http://${host}:${info.port}`, close: () => closeGracefully(server as Server, opts) });
      },
    );
    server.once("error", reject);
    guardServerEdges(server as Server, opts.log);
  });
}

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

/**
 * The server's responses. The core (`http/core.ts`) puts the request id on the response before the router
 * runs, and it goes out with `nosniff` in the header object of the response's `writeHead`, which every
 * answer goes through (an implicit one too). Setting them with `setHeader` instead turns every `writeHead`
 * into Node's slow path, which merges the handler's headers into the set ones one `setHeader` at a time:
 * measured at a tenth of a small route's throughput (docs/benchmarks.md, bench:http).
 */
export class CoreResponse extends ServerResponse {
  /** Set by the core for each request; sent once, with `X-Content-Type-Options: nosniff`. */
  requestId: string | undefined = undefined;

  override writeHead(statusCode: number, statusMessage?: string, headers?: Headers): this;
  override writeHead(statusCode: number, headers?: Headers): this;
  override writeHead(statusCode: number, messageOrHeaders?: string | Headers, maybeHeaders?: Headers): this {
    const id = this.requestId;
    if (id === undefined || this.headersSent) {
      return typeof messageOrHeaders === "string"
        ? super.writeHead(statusCode, messageOrHeaders, maybeHeaders)
        : super.writeHead(statusCode, messageOrHeaders);
    }
    this.requestId = undefined;
    return typeof messageOrHeaders === "string"
      ? super.writeHead(statusCode, messageOrHeaders, this.withCoreHeaders(maybeHeaders, id))
      : super.writeHead(statusCode, this.withCoreHeaders(messageOrHeaders, id));
  }

  private withCoreHeaders(headers: Headers | undefined, id: string): Headers | undefined {
    if (headers !== undefined && !Array.isArray(headers)) {
      // A copy: the handler's object may be shared by every answer of its route.
      const out: OutgoingHttpHeaders = { "X-Request-Id": id, "X-Content-Type-Options": "nosniff" };
      for (const name in headers) out[name] = headers[name];
      return out;
    }
    setCoreHeaders(this, id);
    return headers;
  }
}

/**
 * Puts the request id and `nosniff` on the answer `res` is about to send: in its `writeHead` when the response
 * is `listen`'s (the fast path), else by `setHeader`. What the core does for every request, routed or direct.
 */
export function carryCoreHeaders(res: ServerResponse, requestId: string): void {
  if (res instanceof CoreResponse) res.requestId = requestId;
  else setCoreHeaders(res, requestId);
}

/** The two headers by `setHeader`: for a head without a header object, or a response not made by `listen`. */
export function setCoreHeaders(res: ServerResponse, requestId: string): void {
  res.setHeader("X-Request-Id", requestId);
  res.setHeader("X-Content-Type-Options", "nosniff");
}

function closeGracefully(server: Server, opts: { graceMs: number; log: Logger }): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      opts.log.warn("grace period over: closing remaining connections");
      server.closeAllConnections();
    }, opts.graceMs);
    force.unref();
    // Keep-alive connections that finish their last response must not hold the exit back.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    idle.unref();
    server.close(() => {
      clearInterval(idle);
      clearTimeout(force);
      resolve();
    });
  });
}
