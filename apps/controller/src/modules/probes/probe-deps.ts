import type { ControllerTransport } from "@vantage/transport";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { RateLimitStatus } from "../../http/rate-limit/index.js";
import type { NodeDirectory } from "../nodes/index.js";
import type { BackgroundWork } from "./background.js";
import type { CompletionHooks } from "./callback.js";
import type { HopNetworks } from "./hop-networks.js";
import type { LiveTasks } from "./live-tasks.js";
import type { ProbeQuarantine } from "./quarantine.js";
import type { ProbeLimits } from "./quota.js";
import type { ResultWal } from "./result-wal.js";
import type { ResultWriter } from "./result-writer.js";
import type { TaskWatch } from "./task-watch.js";
import type { WriteRetry } from "./write-retry.js";

/** What the probe verbs work with: the module's parts, built once by `createProbes`. */
export interface ProbeDeps {
  db: Kysely<Database>;
  transport: ControllerTransport;
  directory: NodeDirectory;
  background: BackgroundWork;
  /** Form B's results go in behind the answer (ADR 0003). */
  writer: ResultWriter;
  /** With JetStream: each finished Form B task is in this log before it is answered (ADR 0012). */
  wal?: ResultWal | undefined;
  /** Form A's writes, retried while the database is away (shared with the writer: shutdown ends both). */
  retry: WriteRetry;
  /** This controller process (its lease in `controller_leases`); Form A tasks carry it. */
  controllerId: string;
  quota: ProbeLimits;
  /** The tasks running here, for their followers (live streams). */
  live: LiveTasks;
  /** Tasks running on other controllers, followed through the database. */
  watch: TaskWatch;
  log: Logger;
  defaultNodes: number;
  offlineAfterMs: number;
  allowPrivateTargets: boolean;
  /** Probes that crashed an agent, refused for a while (quarantine.ts). */
  quarantine?: ProbeQuarantine | undefined;
  /** Form A's completion webhooks (callback.ts); absent: callback URLs are never called. */
  hooks?: CompletionHooks | undefined;
  /** Annotates traceroute and mtr hops with their networks (the info module's IP data). */
  hopNetworks?: HopNetworks | undefined;
}

/** A created task and what it left of the caller's quota (undefined: unlimited). */
export interface Created<T> {
  value: T;
  quota: RateLimitStatus | undefined;
}
