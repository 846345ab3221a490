import { createServer, type RequestListener, type Server, type ServerOptions } from "node:http";
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
}): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: opts.fetch,
        hostname: opts.host,
        port: opts.port,
        createServer: ((options: ServerOptions, listener: RequestListener) =>
          createServer(options, originFormOnly(listener))) as unknown as typeof createServer,
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
