// The embedded mode's local agent, as a child process of the controller (supervisor.ts forks it): the
// agent's code runs here, so no probe, however it fails, can end the controller's process. Started as
// `node [--import tsx] child.ts|embedded-agent.mjs '<ChildArgs as JSON>'` with an IPC channel.
import { generateKeyPairSync } from "node:crypto";
import { resultSigner } from "@vantage/protocol";
import { ipcAgentLink, type ToAgentChild } from "@vantage/transport";
import { pino } from "pino";
import type { ChildArgs } from "./child-args.js";

const args = JSON.parse(process.argv[2] ?? "{}") as ChildArgs;
const log = pino(
  {
    name: "vantage-embedded-agent",
    level: args.logLevel,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  // Synchronous: the last lines before an exit (a crash, the controller gone) are written.
  pino.destination({ dest: 1, sync: true }),
);

async function main(): Promise<void> {
  const { ExitLog, installCrashGuard, loadOrCreateSigningKey, startAgent } = await import("@vantage/agent");
  const exits: import("@vantage/agent").ExitLog = new ExitLog();
  exits.use(log);
  if (!process.send) exits.exit(2, "not started by the controller (no IPC channel)");
  // The controller gone (even SIGKILLed): its end of the channel closes, and this process must not live on.
  process.on("disconnect", () => exits.exit(0, "the controller's IPC channel closed"));
  // A terminal's Ctrl-C and a service manager's SIGTERM reach the whole process group: the controller
  // handles them and stops this process itself (a `stop` message), after its own requests have drained.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () =>
      log.info({ signal }, `${signal}: left to the controller, which stops this process`),
    );
  }

  const probe = args.probeModule
    ? ((await import(args.probeModule)) as { probe: import("@vantage/agent").ProbeFn }).probe
    : undefined;
  const link = ipcAgentLink(process);
  let signer: import("@vantage/protocol").ResultSigner | undefined;
  try {
    signer = args.signingKeyFile
      ? loadOrCreateSigningKey(args.signingKeyFile)
      : resultSigner(generateKeyPairSync("ed25519").privateKey);
  } catch (err) {
    // Probes still run; their results are unsigned (and say so by carrying no signature).
    log.error({ err, file: args.signingKeyFile }, "signing key unusable: results go unsigned");
  }
  const agent = startAgent({ config: args.settings, link, log, probe, signer });
  installCrashGuard({
    log,
    agent: () => agent,
    flush: () => link.flush(),
    exit: (code, reason) => exits.exit(code, reason),
  });
  process.on("message", (raw: unknown) => {
    const m = raw as ToAgentChild;
    if (typeof m !== "object" || m === null || m.t !== "stop") return;
    void agent
      .stop()
      .then(() => link.close())
      .then(
        () => exits.exit(0, "stopped by the controller"),
        (err: unknown) => {
          log.error({ err }, "error while stopping");
          exits.exit(1, "error while stopping");
        },
      );
  });
}

main().catch((err: unknown) => {
  log.fatal({ err }, "embedded agent failed to start");
  process.exit(1);
});
