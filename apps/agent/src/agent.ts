import { runProbe } from "@vantage/probes";
import { MAX_CRASHED_JOBS, type ResultSigner } from "@vantage/protocol";
import type { AgentLink } from "@vantage/transport";
import type { Logger } from "pino";
import type { AgentSettings } from "./config.js";
import { AGENT_VERSION, startPresence } from "./presence.js";
import { JobRunner, type ProbeFn } from "./runner.js";

export interface StartAgentOptions {
  /** The agent process passes its whole AgentConfig; the embedded mode builds these fields itself. */
  config: AgentSettings;
  /** `natsAgentLink(nc)` in the agent process, `InProcessBus.agent()` in the embedded mode. */
  link: AgentLink;
  log: Logger;
  /** Defaults to `runProbe` from @vantage/probes; tests inject a fake to exercise runner logic. */
  probe?: ProbeFn | undefined;
  /**
   * The key results are signed with (docs/verify.md): the agent's nkey in the agent process, a key of its
   * own kept in the data directory in the embedded mode. Its public half goes out in every heartbeat.
   */
  signer?: ResultSigner | undefined;
}

export interface RunningAgent {
  /**
   * Graceful stop: new jobs are refused with `shutting_down`, running ones finish, a last heartbeat with
   * `draining: true` goes out, then the agent stops serving. Idempotent. Does not close the link.
   */
  stop(): Promise<void>;
  /** Jobs running now. */
  running(): number;
  /** The ids of the jobs running now. */
  inflightJobs(): string[];
  /**
   * After an error escaped a job (the process is about to exit): stops accepting jobs and publishes the
   * crash notice, a last heartbeat with `draining: true` and `crashed_jobs` listing `jobIds`, so the
   * controller answers them at once. Synchronous: it only queues the message on the link.
   */
  reportCrash(jobIds: readonly string[]): void;
}

/** Serves node `config.VANTAGE_NODE_ID`'s jobs on `link` and publishes its heartbeats. */
export function startAgent(opts: StartAgentOptions): RunningAgent {
  const { config, link } = opts;
  const nodeId = config.VANTAGE_NODE_ID;
  const log = opts.log.child({ node_id: nodeId });
  const runner = new JobRunner({
    maxJobs: config.VANTAGE_AGENT_CONCURRENCY,
    allowPrivate: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    probe: opts.probe ?? runProbe,
    log,
    signing: opts.signer && { signer: opts.signer, nodeId, agentVersion: AGENT_VERSION },
  });

  const stopServing = link.serveJobs(nodeId, (message, info) =>
    info.replyExpected ? runner.handle(message, info.progress) : runner.notice(message),
  );
  const presence = startPresence(config, {
    publish: (hb) => link.publishHeartbeat(nodeId, hb),
    running: () => runner.running(),
    signingKey: opts.signer?.key,
    onError: (err) => log.warn({ err }, "heartbeat not sent"),
  });
  log.info(
    {
      max_jobs: config.VANTAGE_AGENT_CONCURRENCY,
      heartbeat_ms: config.VANTAGE_HEARTBEAT_MS,
      allow_private_targets: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
      transport: link.kind,
    },
    "agent serving jobs",
  );

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    runner.stopAccepting();
    // Tell the controller at once so it stops picking this node, then again once the work is done.
    presence.beat(true);
    const inflight = runner.running();
    if (inflight > 0) log.info({ running: inflight }, "draining: finishing running jobs");
    await runner.idle();
    presence.stop();
    presence.beat(true);
    await stopServing();
    log.info("agent stopped");
  };

  return {
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
    running: () => runner.running(),
    inflightJobs: () => runner.inflightJobs(),
    reportCrash: (jobIds) => {
      runner.stopAccepting();
      presence.stop();
      presence.beat(true, jobIds.slice(0, MAX_CRASHED_JOBS));
    },
  };
}
