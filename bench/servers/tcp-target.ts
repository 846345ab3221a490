import { createServer } from "node:net";

/**
 * The probe target of `bench:probe-fanout`: a TCP listener in a process of its own, as a real target is
 * on another host. It accepts and closes; the probe measures the handshake, which the kernel completes.
 * (In the benchmark's own process its accept and close events competed with the client that times each
 * request, and that time was charged to the service.)
 */
const port = Number(process.env.PORT ?? 0);
const server = createServer({ pauseOnConnect: true }, (socket) => socket.destroy());
server.listen({ port, host: "127.0.0.1", backlog: 4096 });
process.on("SIGTERM", () => server.close(() => process.exit(0)));
