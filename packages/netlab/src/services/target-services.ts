/**
 * Runs inside the target namespace (t1): HTTP on 80, HTTPS on 443, DNS on 53 (UDP and TCP) and plain TCP
 * listeners, all on every address of both families. Prints one `{"ready":true}` line once everything
 * listens, then stays silent (its owner may stop reading). Usage: target-services.ts '<json config>'.
 */
import { readFileSync } from "node:fs";
import { createServer as createHttp, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import { createServer as createTcp, type Server } from "node:net";
import { startDnsServer } from "./dns-server.js";

export interface TargetServicesConfig {
  http: number;
  https: number;
  dns: number;
  tcp: number[];
  certFile: string;
  keyFile: string;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://lab");
  const status = /^\/status\/(\d{3})$/.exec(url.pathname);
  const delay = /^\/delay\/(\d{1,5})$/.exec(url.pathname);
  if (status) {
    const wait = Number(url.searchParams.get("delay") ?? 0);
    setTimeout(() => {
      res.writeHead(Number(status[1]), { "content-type": "text/plain" }).end(`status ${status[1]}\n`);
    }, wait);
  } else if (delay) {
    // Holds the response head back, so first-byte time is known to be at least this long.
    setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("late\n"), Number(delay[1]));
  } else if (url.pathname === "/redirect") {
    res.writeHead(302, { location: "/" }).end();
  } else {
    res.writeHead(200, { "content-type": "text/plain", "x-served-by": "vantage-netlab" });
    res.end("hello from the vantage network lab\n");
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host: "::", ipv6Only: false }, () => resolve());
  });
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "{}") as TargetServicesConfig;
  process.stdout.on("error", () => {});
  await listen(createHttp(handle), config.http);
  const tls = { cert: readFileSync(config.certFile), key: readFileSync(config.keyFile) };
  await listen(createHttps(tls, handle), config.https);
  await startDnsServer("::", config.dns);
  for (const port of config.tcp) {
    await listen(
      createTcp((sock) => {
        sock.on("error", () => {});
        sock.end("vantage-netlab\n");
      }),
      port,
    );
  }
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`target services failed: ${String(err)}\n`);
  process.exit(1);
});
