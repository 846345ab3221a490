import type { ProbeContext, ProbeJobSpec, ProbeOutcome } from "@vantage/probes";
import {
  canonicalJson,
  isCompatibleVersion,
  type JobMessage,
  type JobProgress,
  type JobReply,
  type jobErrorCodes,
  jobMessageSchema,
  MAX_JOB_PROGRESS,
  PROTOCOL_VERSION,
  type ResultSigner,
  type ResultStatement,
} from "@vantage/protocol";
import type { Logger } from "pino";
import { VersionWarnings } from "./version-warnings.js";

/** The probe entry point: `runProbe` from @vantage/probes, or a fake in tests. Must not throw (is guarded). */
export type ProbeFn = (spec: ProbeJobSpec, ctx: ProbeContext) => Promise<ProbeOutcome>;

type RefusalCode = (typeof jobErrorCodes)[number];
type DoneReply = Extract<JobReply, { status: "done" }>;

export interface RunnerOptions {
  /** Jobs running at once; one more is refused with `busy` at once (never queued). */
  maxJobs: number;
  allowPrivate: boolean;
  probe: ProbeFn;
  log: Logger;
  /** Kept back from the job's budget for building and sending the reply (event-loop lag included). */
  replyMarginMs?: number;
  /**
   * How long a probe aborted at the deadline may take to return its own outcome (e.g. a traceroute's hops
   * so far) before the runner answers `timeout` without it. Taken from the budget, never added to it.
   */
  abortGraceMs?: number;
  /** Upper bound of one job whatever its budget says; NATS accepts replies for 2 minutes at most. */
  maxJobMs?: number;
  /** How long an aborted probe may keep its slot before the runner gives the slot back anyway. */
  abandonAfterMs?: number;
  /** At most one `warn` line per protocol version this often (ms); the rest go to `debug`. */
  versionWarnIntervalMs?: number;
  /**
   * Signs every result this node answers (docs/verify.md): its key, its node id and release go into the
   * signed statement. Without it, replies carry no signature.
   */
  signing?: { signer: ResultSigner; nodeId: string; agentVersion: string } | undefined;
}

const DEFAULT_REPLY_MARGIN_MS = 50;
const DEFAULT_ABORT_GRACE_MS = 250;
const DEFAULT_MAX_JOB_MS = 110_000;
const DEFAULT_ABANDON_AFTER_MS = 5_000;

/**
 * Runs probe jobs: re-validates each one (the agent trusts nothing it receives), caps concurrency, enforces
 * the job's budget, and always answers with a JobReply. Stopping refuses new jobs and waits for the rest.
 *
 * Time: a job's `budget_ms` counts from its receipt, on this host's monotonic clock; the wall clock is never
 * compared with the controller's. Within the budget, the probe runs until `budget − reply margin − abort
 * grace`, is then aborted, and has the abort grace to answer with what it has.
 */
export class JobRunner {
  private active = 0;
  /** The ids of the jobs running now (a crash notice lists them). */
  private readonly jobIds = new Set<string>();
  private accepting = true;
  private idleWaiters: Array<() => void> = [];
  private readonly maxJobs: number;
  private readonly replyMarginMs: number;
  private readonly abortGraceMs: number;
  private readonly maxJobMs: number;
  private readonly abandonAfterMs: number;
  private readonly versionWarnings: VersionWarnings;

  constructor(private readonly opts: RunnerOptions) {
    if (!Number.isInteger(opts.maxJobs) || opts.maxJobs < 1) throw new Error("maxJobs must be >= 1");
    this.maxJobs = opts.maxJobs;
    this.replyMarginMs = opts.replyMarginMs ?? DEFAULT_REPLY_MARGIN_MS;
    this.abortGraceMs = opts.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
    this.maxJobMs = opts.maxJobMs ?? DEFAULT_MAX_JOB_MS;
    this.abandonAfterMs = opts.abandonAfterMs ?? DEFAULT_ABANDON_AFTER_MS;
    this.versionWarnings = new VersionWarnings(opts.log, opts.versionWarnIntervalMs);
  }

  /** Jobs holding a slot now. */
  running(): number {
    return this.active;
  }

  /** The ids of the jobs running now, oldest first. */
  inflightJobs(): string[] {
    return [...this.jobIds];
  }

  capacity(): number {
    return this.maxJobs;
  }

  isAccepting(): boolean {
    return this.accepting;
  }

  /** From now on every job is refused with `shutting_down`; running ones go on. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Resolves once no job holds a slot. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops accepting and waits for the running jobs. */
  async drain(): Promise<void> {
    this.stopAccepting();
    await this.idle();
  }

  /**
   * The job handler: takes the decoded message, resolves with the reply. Never rejects. `progress` sends a
   * message to the requester before the reply (the link's); a job that asks for it (`progress: true`) gets
   * its probe's progress through it, as JobProgress messages, until the probe has returned.
   */
  async handle(message: unknown, progress?: (message: JobProgress) => void): Promise<JobReply> {
    const receivedAt = performance.now();
    const jobId = rawJobId(message);
    const log = this.opts.log;

    if (isRecord(message) && "v" in message && !isCompatibleVersion(message.v)) {
      this.versionWarnings.report(message.v, { job_id: jobId, refused: "incompatible_version" });
      return refuse(
        jobId,
        "incompatible_version",
        `agent speaks protocol v${PROTOCOL_VERSION}, job is v${JSON.stringify(message.v)}`,
      );
    }

    const parsed = jobMessageSchema.safeParse(message);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? issue.path.join(".") || "(root)" : "(root)";
      const why = `${where}: ${issue?.message ?? "invalid"}`.slice(0, 200);
      log.warn({ job_id: jobId, issue: why }, "refused invalid job");
      return refuse(jobId, "invalid_job", why);
    }
    const job = parsed.data;

    if (!this.accepting) return refuse(job.job_id, "shutting_down", "agent is shutting down");
    if (this.active >= this.maxJobs) {
      log.debug({ job_id: job.job_id, running: this.active }, "refused job: busy");
      return refuse(job.job_id, "busy", `agent runs ${this.active} jobs, its limit`);
    }
    const reply = await this.run(job, receivedAt, job.progress ? progress : undefined);
    return this.opts.signing ? signReply(reply, message as { spec?: unknown }, this.opts.signing) : reply;
  }

  /**
   * A message without a reply subject (the controller's `notify`). The only one there is today tells this
   * agent that the controller drops its heartbeats for their protocol version: log it, loud enough to act on.
   */
  async notice(message: unknown): Promise<void> {
    if (isRecord(message) && "v" in message && !isCompatibleVersion(message.v)) {
      const text = typeof message.message === "string" ? message.message.slice(0, 500) : undefined;
      this.versionWarnings.report(message.v, {
        notice: typeof message.notice === "string" ? message.notice.slice(0, 64) : undefined,
        controller_says: text,
      });
      return;
    }
    this.opts.log.debug({ job_id: rawJobId(message) }, "message without a reply subject ignored");
  }

  private async run(
    job: JobMessage,
    receivedAt: number,
    progress: ((message: JobProgress) => void) | undefined,
  ): Promise<DoneReply> {
    this.jobIds.add(job.job_id);
    try {
      return await this.runHeld(job, receivedAt, progress);
    } finally {
      // The reply is on its way: a crash from now on is not this job's to answer for.
      this.jobIds.delete(job.job_id);
    }
  }

  private async runHeld(
    job: JobMessage,
    receivedAt: number,
    progress: ((message: JobProgress) => void) | undefined,
  ): Promise<DoneReply> {
    this.active++;
    const log = this.opts.log;
    const startedAt = new Date();
    const t0 = performance.now();
    const total = Math.min(job.budget_ms - this.replyMarginMs - (t0 - receivedAt), this.maxJobMs);
    if (total <= 0) {
      log.warn(
        { job_id: job.job_id, budget_ms: job.budget_ms, reply_margin_ms: this.replyMarginMs },
        "job budget leaves no time to run the probe: answered timeout",
      );
      this.release();
      return doneReply(job, startedAt, performance.now() - t0, timeoutOutcome(job.budget_ms));
    }
    // Small budgets keep most of their time for the probe itself.
    const grace = Math.min(this.abortGraceMs, Math.floor(total / 4));

    const abort = new AbortController();
    let settled = false;
    // Progress stops when the job is answered (a probe aborted at the deadline may still be running).
    let answered = false;
    const onProgress = progress && progressSender(job, progress, () => answered, log);
    const probeRun = guardedProbe(this.opts.probe, job.spec, {
      allowPrivate: this.opts.allowPrivate,
      signal: abort.signal,
      ...(onProgress ? { onProgress } : {}),
    }).finally(() => {
      settled = true;
    });
    let timer: NodeJS.Timeout | undefined;
    const after = (ms: number) =>
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      });

    let outcome = await Promise.race([probeRun, after(total - grace)]);
    clearTimeout(timer);
    if (outcome === undefined) {
      // The deadline: abort, then give the probe a bounded moment to answer with what it has (a traceroute
      // returns the hops it got). Its outcome, if it comes, is the job's; otherwise `timeout`.
      abort.abort(new Error("job deadline reached"));
      outcome = await Promise.race([probeRun, after(grace)]);
      clearTimeout(timer);
      if (outcome === undefined) outcome = timeoutOutcome(total);
    }
    answered = true;
    const durationMs = performance.now() - t0;

    if (settled) {
      this.release();
    } else {
      // The reply goes now; the slot stays taken until the aborted probe lets go, or for a bounded time.
      let grace: NodeJS.Timeout | undefined;
      void Promise.race([
        probeRun.then(() => true),
        new Promise<boolean>((r) => {
          grace = setTimeout(() => r(false), this.abandonAfterMs);
        }),
      ]).then((letGo) => {
        clearTimeout(grace);
        if (!letGo)
          log.error(
            { job_id: job.job_id, type: job.spec.type },
            "probe ignored its abort signal; slot freed",
          );
        this.release();
      });
    }

    log.debug(
      {
        job_id: job.job_id,
        type: job.spec.type,
        success: outcome.success,
        error: outcome.error?.code,
        duration_ms: durationMs,
      },
      "job done",
    );
    return doneReply(job, startedAt, durationMs, outcome);
  }

  private release(): void {
    this.active--;
    if (this.active === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}

/**
 * A probe's `onProgress` for a job that asked for progress: each call becomes a numbered JobProgress
 * message, at most MAX_JOB_PROGRESS of them and none once the job is answered. A failure to send is
 * logged and dropped: progress never decides a job.
 */
function progressSender(
  job: JobMessage,
  send: (message: JobProgress) => void,
  answered: () => boolean,
  log: Logger,
): (detail: Record<string, unknown>) => void {
  let seq = 0;
  return (detail) => {
    if (answered() || seq >= MAX_JOB_PROGRESS) return;
    seq += 1;
    try {
      send({ v: PROTOCOL_VERSION, job_id: job.job_id, status: "progress", seq, detail });
    } catch (err) {
      log.debug({ err, job_id: job.job_id }, "progress not sent");
    }
  };
}

async function guardedProbe(probe: ProbeFn, spec: ProbeJobSpec, ctx: ProbeContext): Promise<ProbeOutcome> {
  try {
    return await probe(spec, ctx);
  } catch (err) {
    return {
      success: false,
      latency_ms: null,
      error: { code: "probe_error", message: err instanceof Error ? err.message : String(err) },
      detail: null,
    };
  }
}

function doneReply(job: JobMessage, startedAt: Date, durationMs: number, outcome: ProbeOutcome): DoneReply {
  return {
    v: PROTOCOL_VERSION,
    job_id: job.job_id,
    status: "done",
    started_at: startedAt.toISOString(),
    duration_ms: Math.round(durationMs * 1000) / 1000,
    outcome: {
      success: outcome.success,
      latency_ms: outcome.latency_ms,
      error: outcome.error ? { code: outcome.error.code, message: outcome.error.message } : null,
      detail: (outcome.detail as Record<string, unknown> | null) ?? null,
    },
  };
}

/**
 * Adds the release and the signature of the result's statement (result-signature.ts). The spec signed is
 * the one received, before validation: the controller rebuilds the statement from what it sent. One
 * canonical encoding and one Ed25519 signature (OpenSSL's) per job: 50–110 µs of CPU (docs/benchmarks.md).
 */
function signReply(
  reply: DoneReply,
  received: { spec?: unknown },
  signing: NonNullable<RunnerOptions["signing"]>,
): DoneReply {
  const statement: ResultStatement = {
    v: 1,
    node_id: signing.nodeId,
    job_id: reply.job_id,
    agent_version: signing.agentVersion,
    spec: received.spec,
    started_at: reply.started_at,
    duration_ms: reply.duration_ms,
    outcome: reply.outcome,
  };
  const sig = signing.signer.sign(canonicalJson(statement));
  return { ...reply, agent_version: signing.agentVersion, signature: { key: signing.signer.key, sig } };
}

function timeoutOutcome(budgetMs: number): ProbeOutcome {
  return {
    success: false,
    latency_ms: null,
    error: {
      code: "timeout",
      message: `probe did not finish within the job's budget (${Math.round(budgetMs)} ms)`,
    },
    detail: null,
  };
}

function refuse(jobId: string, code: RefusalCode, message: string): JobReply {
  return { v: PROTOCOL_VERSION, job_id: jobId, status: "refused", error: { code, message } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function rawJobId(message: unknown): string {
  const id = isRecord(message) ? message.job_id : undefined;
  return typeof id === "string" ? id.slice(0, 64) : "";
}
