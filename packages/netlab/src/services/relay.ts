/**
 * Runs inside a client namespace: accepts TCP on 127.0.0.1:<port> and pipes each connection to a unix
 * socket on the shared filesystem. Unix sockets ignore network namespaces, so this is how an agent in the
 * lab reaches the NATS server on the host without any interface, address or route joining the lab to
 * the host network. Usage: relay.ts <port> <unix socket path>.
 */
import { connect, createServer } from "node:net";
import { joinSockets } from "./pipe.js";

const port = Number(process.argv[2]);
const path = process.argv[3] ?? "";
process.stdout.on("error", () => {});
const server = createServer((inbound) => {
  const outbound = connect(path);
  joinSockets(inbound, outbound);
});
server.listen(port, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ ready: true })}\n`));
