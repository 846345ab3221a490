import { connectNats } from "../../packages/transport/src/nats.js";

/**
 * Test-only: the floor's responder for `pnpm bench:probe-fanout`. One process, one NATS connection, one
 * subscription (`bench.floor.<ECHO_ID>`): every request is answered at once with ECHO_BYTES bytes (about
 * what an agent's TCP probe result is), nothing decoded, nothing run. What remains of a fanned-out probe
 * once the controller's and the agents' own work is taken away: the messages through the same nats-server.
 * Environment: NATS_URL, NATS_NKEY_SEED_FILE, ECHO_ID, ECHO_BYTES (default 320). Says `ready` over IPC.
 */
const nc = await connectNats({
  servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
  name: `floor-${process.env.ECHO_ID}`,
  nkeySeedFile: process.env.NATS_NKEY_SEED_FILE,
});
const answer = new TextEncoder().encode(
  JSON.stringify({ pad: "x".repeat(Math.max(0, Number(process.env.ECHO_BYTES ?? 320) - 10)) }),
);
nc.subscribe(`bench.floor.${process.env.ECHO_ID ?? "0"}`, {
  callback: (err, msg) => {
    if (!err) msg.respond(answer);
  },
});
await nc.flush();
process.send?.({ type: "ready" });
process.on("SIGTERM", () => {
  void nc.close().finally(() => process.exit(0));
});
