import type { ProbeOutcome } from "@vantage/probes";
import { type JobReply, jobReplySchema, PROTOCOL_VERSION } from "@vantage/protocol";
import { captureLog } from "@vantage/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JobRunner, type ProbeFn, type RunnerOptions } from "./runner.js";

const ok: ProbeOutcome = {
  success: true,
  latency_ms: 1.5,
  error: null,
  detail: { resolved_ip: "127.0.0.1", port: 80, connect_ms: 1.5 },
};

/** A probe that finishes when the test says so (or honours abort when told to). */
function gatedProbe(opts: { honourAbort: boolean }) {
  const gates: Array<() => void> = [];
  const probe: ProbeFn = (_spec, ctx) =>
    new Promise<ProbeOutcome>((resolve) => {
      gates.push(() => resolve(ok));
      if (opts.honourAbort) {
        ctx.signal?.addEventListener("abort", () =>
          resolve({
            success: false,
            latency_ms: null,
            error: { code: "aborted", message: "x" },
            detail: null,
          }),
        );
      }
    });
  const openAll = () => {
    for (const g of gates.splice(0)) g();
  };
  return { probe, openAll, started: () => gates.length };
}

let seq = 0;
function job(overrides: Record<string, unknown> = {}) {
  return {
    v: PROTOCOL_VERSION,
    job_id: `job-${++seq}`,
    budget_ms: 5000,
    spec: { type: "tcp", params: { host: "127.0.0.1", port: 80 } },
    ...overrides,
  };
}

function runner(probe: ProbeFn, opts: Partial<RunnerOptions> = {}) {
  const { log, lines } = captureLog();
  return { runner: new JobRunner({ maxJobs: 4, allowPrivate: true, probe, log, ...opts }), lines };
}

function refusal(reply: JobReply): string | undefined {
  return reply.status === "refused" ? reply.error.code : undefined;
}

describe("JobRunner", () => {
  it("sends the probe's progress, numbered, to a job that asks for it, and none after the reply", async () => {
    let late: (() => void) | undefined;
    const { runner: r } = runner(async (_spec, ctx) => {
      ctx.onProgress?.({ rounds: 1 });
      ctx.onProgress?.({ rounds: 2 });
      late = () => ctx.onProgress?.({ rounds: 3 });
      return ok;
    });
    const sent: unknown[] = [];
    const j = job({ progress: true });
    const reply = await r.handle(j, (m) => sent.push(m));
    expect(reply.status).toBe("done");
    late?.();
    expect(sent).toEqual([
      { v: PROTOCOL_VERSION, job_id: j.job_id, status: "progress", seq: 1, detail: { rounds: 1 } },
      { v: PROTOCOL_VERSION, job_id: j.job_id, status: "progress", seq: 2, detail: { rounds: 2 } },
    ]);
    // A job that does not ask gets no progress: its probe is not even given the callback.
    let given = true;
    const { runner: quiet } = runner(async (_spec, ctx) => {
      given = ctx.onProgress !== undefined;
      return ok;
    });
    await quiet.handle(job(), (m) => sent.push(m));
    expect(given).toBe(false);
    expect(sent).toHaveLength(2);
  });

  it("runs a valid job and replies done with started_at and duration_ms", async () => {
    let seen: { allowPrivate: boolean; signal: boolean } | undefined;
    const { runner: r } = runner(async (spec, ctx) => {
      expect(spec).toEqual({ type: "tcp", params: { host: "127.0.0.1", port: 80, timeout_ms: 5000 } });
      seen = { allowPrivate: ctx.allowPrivate, signal: ctx.signal instanceof AbortSignal };
      return ok;
    });
    const reply = await r.handle(job({ job_id: "j1" }));
    expect(jobReplySchema.parse(reply)).toEqual(reply);
    expect(reply).toMatchObject({ v: PROTOCOL_VERSION, job_id: "j1", status: "done", outcome: ok });
    if (reply.status !== "done") throw new Error("not done");
    expect(Date.parse(reply.started_at)).toBeGreaterThan(Date.now() - 5000);
    expect(reply.duration_ms).toBeGreaterThanOrEqual(0);
    expect(seen).toEqual({ allowPrivate: true, signal: true });
    expect(r.running()).toBe(0);
  });

  it("refuses anything that is not a valid job with invalid_job, naming the field", async () => {
    const { runner: r } = runner(async () => ok);
    for (const bad of [
      null,
      "job",
      [1],
      {},
      job({ spec: { type: "tcp", params: { host: "x", port: 0 } } }),
    ]) {
      const reply = await r.handle(bad);
      expect(jobReplySchema.parse(reply)).toEqual(reply);
      expect(refusal(reply)).toBe("invalid_job");
    }
    const reply = await r.handle(job({ job_id: "j2", spec: { type: "smtp", params: {} } }));
    expect(reply).toMatchObject({ job_id: "j2", status: "refused", error: { code: "invalid_job" } });
    if (reply.status === "refused") expect(reply.error.message).toContain("spec");
  });

  it("refuses another protocol version with incompatible_version and logs it clearly, once a minute", async () => {
    let ran = false;
    const { runner: r, lines } = runner(async () => {
      ran = true;
      return ok;
    });
    const reply = await r.handle(job({ v: 999, job_id: "j3", spec: { something: "new" } }));
    expect(reply).toEqual({
      v: PROTOCOL_VERSION,
      job_id: "j3",
      status: "refused",
      error: { code: "incompatible_version", message: expect.stringContaining("v999") },
    });
    expect(await r.handle(job({ v: 999, job_id: "j3b" }))).toMatchObject({
      status: "refused",
      error: { code: "incompatible_version" },
    });
    expect(ran).toBe(false);
    const warns = lines.filter((l) => l.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({ job_id: "j3", remote_v: 999, agent_v: PROTOCOL_VERSION });
    expect(String(warns[0]?.msg)).toMatch(
      /protocol version 999 from the controller is not this agent's v1: upgrade this agent/,
    );
    expect(lines.find((l) => l.job_id === "j3b")?.level).toBe(20);
  });

  it("logs a notice (no reply subject) of another version naming both versions and what to do", async () => {
    const { runner: r, lines } = runner(async () => ok, { versionWarnIntervalMs: 0 });
    await r.notice({ v: 99, notice: "incompatible_version", message: "controller drops your heartbeats" });
    await r.notice({ v: 0, notice: "incompatible_version", message: "older controller" });
    await r.notice(job({ job_id: "no-reply" }));
    const warns = lines.filter((l) => l.level === 40);
    expect(warns.map((w) => [w.remote_v, w.agent_v])).toEqual([
      [99, PROTOCOL_VERSION],
      [0, PROTOCOL_VERSION],
    ]);
    expect(warns[0]).toMatchObject({ controller_says: "controller drops your heartbeats" });
    expect(String(warns[0]?.msg)).toMatch(/version 99 .* not this agent's v1: upgrade this agent/);
    expect(String(warns[1]?.msg)).toMatch(/version 0 .* not this agent's v1: upgrade the controller/);
    // A job of this version without a reply subject has nobody to answer: it does not run.
    expect(r.running()).toBe(0);
    expect(lines.find((l) => l.job_id === "no-reply")?.level).toBe(20);
  });

  it("refuses with busy at once beyond the cap, without queueing", async () => {
    const g = gatedProbe({ honourAbort: false });
    const { runner: r } = runner(g.probe, { maxJobs: 2 });
    const first = [r.handle(job()), r.handle(job())];
    expect(r.running()).toBe(2);
    const t0 = performance.now();
    const third = await r.handle(job());
    expect(performance.now() - t0).toBeLessThan(50);
    expect(refusal(third)).toBe("busy");
    expect(g.started()).toBe(2);
    g.openAll();
    const done = await Promise.all(first);
    expect(done.map((d) => d.status)).toEqual(["done", "done"]);
    expect(r.running()).toBe(0);
    const again = r.handle(job());
    g.openAll();
    expect((await again).status).toBe("done");
  });

  it("at the budget aborts the probe and sends the partial outcome it answers with inside the grace", async () => {
    const partial: ProbeOutcome = {
      success: false,
      latency_ms: null,
      error: { code: "timeout", message: "stopped at the deadline" },
      detail: {
        resolved_ip: "192.0.2.9",
        reached: false,
        hops: [{ hop: 1, ip: "192.0.2.1", hostname: null, rtts: [1.2] }],
      },
    };
    let abortedAt: number | undefined;
    const probe: ProbeFn = (_s, ctx) =>
      new Promise((resolve) => {
        ctx.signal?.addEventListener("abort", () => {
          abortedAt = performance.now();
          // Like the traceroute: it stops, then settles with the hops it has (a few ms later).
          setTimeout(() => resolve(partial), 20);
        });
      });
    const { runner: r } = runner(probe, { replyMarginMs: 50, abortGraceMs: 100 });
    const t0 = performance.now();
    const reply = await r.handle(job({ budget_ms: 450 }));
    const elapsed = performance.now() - t0;
    // Aborted at budget − margin − grace = 300 ms; answered well before the budget runs out.
    expect((abortedAt ?? 0) - t0).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(400);
    expect(reply).toMatchObject({ status: "done", outcome: partial });
    expect(r.running()).toBe(0);
  });

  it("answers timeout at the budget when the aborted probe does not answer within the grace", async () => {
    let aborted = false;
    const probe: ProbeFn = (_s, ctx) =>
      new Promise((resolve) => {
        ctx.signal?.addEventListener("abort", () => {
          aborted = true;
          setTimeout(() => resolve(ok), 300); // too late
        });
      });
    // The answer is due at the budget less the reply margin (900 ms); before the budget itself, with 300 ms
    // for timers that fire late on a loaded machine.
    const { runner: r } = runner(probe, { replyMarginMs: 300, abortGraceMs: 100 });
    const t0 = performance.now();
    const reply = await r.handle(job({ budget_ms: 1200 }));
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(890);
    expect(elapsed).toBeLessThan(1200);
    expect(aborted).toBe(true);
    expect(reply).toMatchObject({
      status: "done",
      outcome: { success: false, error: { code: "timeout" }, latency_ms: null },
    });
    expect(r.running()).toBe(1); // the slot stays taken until the probe lets go
    await r.idle();
    expect(r.running()).toBe(0);
  });

  it("frees the slot of a probe that ignores its abort after a bounded grace", async () => {
    const g = gatedProbe({ honourAbort: false });
    const { runner: r, lines } = runner(g.probe, { replyMarginMs: 0, abandonAfterMs: 100 });
    const reply = await r.handle(job({ budget_ms: 50 }));
    expect(reply).toMatchObject({ status: "done", outcome: { error: { code: "timeout" } } });
    expect(r.running()).toBe(1);
    await r.idle();
    expect(r.running()).toBe(0);
    expect(lines.some((l) => String(l.msg).includes("ignored its abort"))).toBe(true);
  });

  it("answers a job whose budget leaves no time with timeout without running it", async () => {
    let ran = false;
    const { runner: r, lines } = runner(
      async () => {
        ran = true;
        return ok;
      },
      { replyMarginMs: 50 },
    );
    const reply = await r.handle(job({ job_id: "tiny", budget_ms: 40 }));
    expect(reply).toMatchObject({ status: "done", outcome: { error: { code: "timeout" } } });
    expect(ran).toBe(false);
    expect(r.running()).toBe(0);
    expect(lines.find((l) => l.job_id === "tiny")?.msg).toMatch(/budget/);
  });

  describe("with the agent's wall clock far from the controller's", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    for (const skewMs of [3_600_000, -3_600_000]) {
      it(`runs the job in full (clock ${skewMs > 0 ? "ahead" : "behind"} by an hour)`, async () => {
        // The controller builds the job with its own clock; the agent's clock is an hour off.
        const controllerNow = Date.now();
        const sent = job({ job_id: `skew${skewMs}`, budget_ms: 2000 });
        vi.useFakeTimers({ toFake: ["Date"], now: controllerNow + skewMs });
        let ran = false;
        const { runner: r } = runner(async () => {
          ran = true;
          await new Promise((res) => setTimeout(res, 20));
          return ok;
        });
        const reply = await r.handle(sent);
        expect(ran).toBe(true);
        expect(reply).toMatchObject({ job_id: `skew${skewMs}`, status: "done", outcome: ok });
        if (reply.status === "done")
          expect(Math.abs(Date.parse(reply.started_at) - (controllerNow + skewMs))).toBeLessThan(1000);
      });
    }
  });

  it("reports a probe that throws as probe_error", async () => {
    const { runner: r } = runner(async () => {
      throw new Error("boom");
    });
    const reply = await r.handle(job());
    expect(reply).toMatchObject({
      status: "done",
      outcome: { success: false, error: { code: "probe_error", message: "boom" } },
    });
  });

  it("on drain refuses new jobs with shutting_down and waits for running ones", async () => {
    const g = gatedProbe({ honourAbort: false });
    const { runner: r } = runner(g.probe);
    const inflight = r.handle(job({ job_id: "in-flight" }));
    let drained = false;
    const draining = r.drain().then(() => {
      drained = true;
    });
    expect(refusal(await r.handle(job()))).toBe("shutting_down");
    await new Promise((res) => setTimeout(res, 30));
    expect(drained).toBe(false);
    g.openAll();
    expect(await inflight).toMatchObject({ job_id: "in-flight", status: "done", outcome: { success: true } });
    await draining;
    expect(drained).toBe(true);
  });
});
