import { heartbeatSchema, isCompatibleVersion } from "@vantage/protocol";
import { TransportError } from "./types.js";

type Reject = (err: TransportError) => void;

/**
 * The requests a controller transport has in flight, by node and job id, so that an agent's crash notice
 * (its last heartbeat, listing `crashed_jobs`) answers them at once instead of at their deadline. Both
 * transports keep one; the notice still reaches the heartbeat handlers (it is a valid draining heartbeat).
 */
export class PendingJobs {
  private readonly byNode = new Map<string, Map<string, Reject>>();

  /** Tracks a request whose message carries a string `job_id`; returns the function that forgets it. */
  track(nodeId: string, message: unknown, reject: Reject): () => void {
    const jobId = jobIdOf(message);
    if (jobId === undefined) return () => {};
    let jobs = this.byNode.get(nodeId);
    if (!jobs) {
      jobs = new Map();
      this.byNode.set(nodeId, jobs);
    }
    jobs.set(jobId, reject);
    return () => {
      const now = this.byNode.get(nodeId);
      if (now?.get(jobId) !== reject) return;
      now.delete(jobId);
      if (now.size === 0) this.byNode.delete(nodeId);
    };
  }

  get size(): number {
    return this.byNode.size;
  }

  /**
   * A heartbeat from `nodeId`: when it is a crash notice (validated with the protocol's schema, of this
   * protocol version, naming its own node), the listed requests of that node fail with `agent_crashed`.
   * Returns the job ids answered.
   */
  heard(nodeId: string, payload: unknown): string[] {
    const crashed = crashedJobsOf(nodeId, payload);
    if (!crashed) return [];
    const jobs = this.byNode.get(nodeId);
    if (!jobs) return [];
    const answered: string[] = [];
    for (const id of crashed) {
      const reject = jobs.get(id);
      if (!reject) continue;
      jobs.delete(id);
      answered.push(id);
      reject(
        new TransportError(
          "agent_crashed",
          `node ${nodeId}'s agent process crashed while running the job (it reported an uncaught error)`,
        ),
      );
    }
    if (jobs.size === 0) this.byNode.delete(nodeId);
    return answered;
  }
}

/** The `crashed_jobs` of a valid crash notice from `nodeId`, else undefined. */
export function crashedJobsOf(nodeId: string, payload: unknown): readonly string[] | undefined {
  if (typeof payload !== "object" || payload === null || !("crashed_jobs" in payload)) return undefined;
  if (!isCompatibleVersion((payload as { v?: unknown }).v)) return undefined;
  const parsed = heartbeatSchema.safeParse(payload);
  if (!parsed.success || parsed.data.node.id !== nodeId) return undefined;
  return parsed.data.crashed_jobs;
}

function jobIdOf(message: unknown): string | undefined {
  const id =
    typeof message === "object" && message !== null ? (message as { job_id?: unknown }).job_id : undefined;
  return typeof id === "string" ? id : undefined;
}
