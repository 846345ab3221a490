import type { ProbeContext, ProbeJobSpec, ProbeOutcome } from "@vantage/probes";
import {
  isCompatibleVersion,
  type JobMessage,
  type JobReply,
  type jobErrorCodes,
  jobMessageSchema,
  PROTOCOL_VERSION,
} from "@vantage/protocol";
import type { Logger } from "pino";

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
  /** Kept back from the controller's deadline so the reply reaches it before it stops waiting. */
  replyMarginMs?: number;
  /** Upper bound of one job whatever its deadline says; NATS accepts replies for 2 minutes at most. */
  maxJobMs?: number;
  /** How long an aborted probe may keep its slot before the runner gives the slot back anyway. */
  abandonAfterMs?: number;
}

const DEFAULT_REPLY_MARGIN_MS = 200;
const DEFAULT_MAX_JOB_MS = 110_000;
const DEFAULT_ABANDON_AFTER_MS = 5_000;

/**
 * Runs probe jobs: re-validates each one (the agent trusts nothing it receives), caps concurrency, enforces
 * the job's deadline, and always answers with a JobReply. Stopping refuses new jobs and waits for the rest.
 */
export class JobRunner {
  private active = 0;
  private accepting = true;
  private idleWaiters: Array<() => void> = [];
  private readonly maxJobs: number;
  private readonly replyMarginMs: number;
  private readonly maxJobMs: number;
  private readonly abandonAfterMs: number;

  constructor(private readonly opts: RunnerOptions) {
    if (!Number.isInteger(opts.maxJobs) || opts.maxJobs < 1) throw new Error("maxJobs must be >= 1");
    this.maxJobs = opts.maxJobs;
    this.replyMarginMs = opts.replyMarginMs ?? DEFAULT_REPLY_MARGIN_MS;
    this.maxJobMs = opts.maxJobMs ?? DEFAULT_MAX_JOB_MS;
    this.abandonAfterMs = opts.abandonAfterMs ?? DEFAULT_ABANDON_AFTER_MS;
  }

  /** Jobs holding a slot now. */
  running(): number {
    return this.active;
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

  /** The job handler: takes the decoded message, resolves with the reply. Never rejects. */
  async handle(message: unknown): Promise<JobReply> {
    const jobId = rawJobId(message);
    const log = this.opts.log;

    if (isRecord(message) && "v" in message && !isCompatibleVersion(message.v)) {
      log.warn(
        { job_id: jobId, job_v: message.v, agent_v: PROTOCOL_VERSION },
        `refused job: protocol version ${JSON.stringify(message.v)} is not this agent's v${PROTOCOL_VERSION}; ` +
          "run the same Vantage release on the controller and the agents",
      );
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
    return this.run(job);
  }

  private async run(job: JobMessage): Promise<DoneReply> {
    this.active++;
    const log = this.opts.log;
    const startedAt = new Date();
    const t0 = performance.now();
    const remaining = job.deadline - startedAt.getTime();
    const budget = Math.max(0, Math.min(remaining - this.replyMarginMs, this.maxJobMs));
    if (budget <= 0) {
      if (remaining <= 0) {
        log.warn(
          { job_id: job.job_id, late_ms: -remaining },
          "job arrived after its deadline; if this repeats, check this host's clock (NTP)",
        );
      }
      this.release();
      return doneReply(job, startedAt, performance.now() - t0, timeoutOutcome(0));
    }

    const abort = new AbortController();
    let settled = false;
    const probeRun = guardedProbe(this.opts.probe, job.spec, {
      allowPrivate: this.opts.allowPrivate,
      signal: abort.signal,
    }).finally(() => {
      settled = true;
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<ProbeOutcome>((resolve) => {
      timer = setTimeout(() => {
        abort.abort(new Error("job deadline reached"));
        resolve(timeoutOutcome(budget));
      }, budget);
    });

    const outcome = await Promise.race([probeRun, deadline]);
    clearTimeout(timer);
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

function timeoutOutcome(budgetMs: number): ProbeOutcome {
  return {
    success: false,
    latency_ms: null,
    error: { code: "timeout", message: `probe did not finish within the job's deadline (${budgetMs} ms)` },
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
