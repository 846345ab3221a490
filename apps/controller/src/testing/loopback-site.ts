import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP site a monitor watches, that a test stops and starts again on the same port (to make the
 * monitor go down and up). The first `start()` picks a free port.
 */
export function loopbackSite() {
  let server: Server | undefined;
  let port = 0;
  return {
    get port() {
      return port;
    },
    get url() {
      return `http://127.0.0.1:${port}/`;
    },
    start: () =>
      new Promise<void>((resolve) => {
        const s = createServer((_, res) => res.end("ok\n"));
        server = s;
        s.listen(port, "127.0.0.1", () => {
          port = (s.address() as AddressInfo).port;
          resolve();
        });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
