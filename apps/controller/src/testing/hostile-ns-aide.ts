import { rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer, type Server, type Socket } from "node:net";
import { hostileAnswer, startUdpDnsServer } from "@vantage/probes/testing/dns-server";

/**
 * The test's hands inside a hostile namespace (started there by hostile-ns.ts with `ip netns exec`): the
 * misbehaving resolver on the namespace's 127.0.0.1:53, a tiny HTTP server that works (the "next probe
 * succeeds" target), and pipes between the namespace's loopback and unix sockets in the work directory
 * (file systems are shared across namespaces, loopbacks are not): the test reaches the services in here
 * through them, and an agent in another namespace reaches NATS. Prints `ready` once all listen; exits when
 * its stdin closes (the test process went away).
 */
export interface AideConfig {
  /** Serve `hostileAnswer` over UDP here (no TCP). */
  dns?: { host: string; port: number };
  /** An HTTP server answering 200 `ok` on 127.0.0.1:port. */
  httpPort?: number;
  /** Unix socket → 127.0.0.1:port (the test calls in), or 127.0.0.1:port → unix socket (NATS from a neighbour). */
  relays?: ({ unix: string; toPort: number } | { port: number; toUnix: string })[];
}

function pipe(inbound: Socket, outbound: Socket): void {
  // Each side's end is passed on by `pipe` once what was read from it is written: a relay that destroyed
  // both sockets on the first `close` dropped the tail of a large answer still queued for the caller
  // (the OpenAPI document, read as "aborted"). Only an error cuts both at once.
  inbound.pipe(outbound).pipe(inbound);
  const cut = (): void => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on("error", cut);
  outbound.on("error", cut);
}

function listen(server: Server, where: string | number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    if (typeof where === "string") server.listen(where, resolve);
    else server.listen(where, "127.0.0.1", resolve);
  });
}

async function main(config: AideConfig): Promise<void> {
  if (config.dns) await startUdpDnsServer(config.dns.host, config.dns.port, hostileAnswer);
  if (config.httpPort !== undefined) {
    const http = createHttpServer((_req, res) => res.end("ok"));
    await listen(http as unknown as Server, config.httpPort);
  }
  for (const relay of config.relays ?? []) {
    if ("unix" in relay) {
      rmSync(relay.unix, { force: true });
      await listen(
        createServer((c) => pipe(c, connect(relay.toPort, "127.0.0.1"))),
        relay.unix,
      );
    } else {
      await listen(
        createServer((c) => pipe(c, connect(relay.toUnix))),
        relay.port,
      );
    }
  }
  process.stdout.write("ready\n");
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}

main(JSON.parse(process.argv[2] ?? "{}") as AideConfig).catch((err) => {
  process.stderr.write(`aide: ${String(err)}\n`);
  process.exit(1);
});
