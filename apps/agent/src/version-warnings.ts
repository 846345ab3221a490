import { PROTOCOL_VERSION } from "@vantage/protocol";
import type { Logger } from "pino";

const DEFAULT_INTERVAL_MS = 60_000;

/**
 * The warning an agent logs when a message of another protocol version reaches its job subject (a job, or
 * the controller's notice that it drops this agent's heartbeats). Once per version per interval at `warn`,
 * the rest at `debug`: a mismatch repeats every few seconds until someone upgrades.
 */
export class VersionWarnings {
  private readonly lastWarned = new Map<string, number>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = DEFAULT_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  report(remoteV: unknown, fields: Record<string, unknown>): void {
    const key = JSON.stringify(remoteV) ?? "undefined";
    const t = this.now();
    const last = this.lastWarned.get(key);
    const record = { ...fields, remote_v: remoteV, agent_v: PROTOCOL_VERSION };
    if (last !== undefined && t - last < this.intervalMs) {
      this.log.debug(record, "message of another protocol version (warned already)");
      return;
    }
    // A handful of keys at most: versions that exist, plus garbage from a broken controller.
    if (this.lastWarned.size >= 16) this.lastWarned.clear();
    this.lastWarned.set(key, t);
    this.log.warn(
      record,
      `protocol version ${key} from the controller is not this agent's v${PROTOCOL_VERSION}: ${advice(remoteV)}; ` +
        "until then this node runs no jobs",
    );
  }
}

function advice(remoteV: unknown): string {
  if (typeof remoteV === "number" && remoteV > PROTOCOL_VERSION)
    return "upgrade this agent to the controller's Vantage release";
  if (typeof remoteV === "number" && remoteV < PROTOCOL_VERSION)
    return "upgrade the controller to this agent's Vantage release";
  return "run the same Vantage release on the controller and the agents";
}
