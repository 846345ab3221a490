import { elapsedMs, replyDeadline, roundMs } from "./clock.js";
import { type MtrAnswer, type MtrSender, mtrPort, openSender } from "./mtr-senders.js";
import { onAbort, settle } from "./outcome.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { type MtrParams, mtrParamsSchema } from "./probe-params.js";
import type { MtrHop, MtrResult } from "./probe-results.js";
import { resolveAndCheck } from "./target-guard.js";
import type { Probe, ProbeContext } from "./types.js";

/** The least time an mtr run gives its target's name lookup (as traceroute). */
const LOOKUP_MIN_MS = 5000;

interface HopStats {
  sent: number;
  rtts: number[];
  last: number | null;
  ips: Map<string, number>;
}

/**
 * mtr (`mtr -n --report -c <rounds>`, with `-u` or `-T` for the other modes): every round sends one probe
 * per hop limit, 1 up to the end of the path as known so far (the lowest hop limit the target, or an
 * unreachable, has answered), waits up to `timeout_ms` for the answers and starts the next round
 * `interval_ms` after this one began. Per hop: sent, received, loss, last/avg/best/worst/stdev of the
 * round-trip times, and every address that answered (ECMP). A probe still unanswered when the run stops at
 * its deadline is not counted as sent (mtr leaves in-flight probes out too).
 */
export const mtrProbe: Probe<"mtr"> = {
  type: "mtr",
  paramsSchema: mtrParamsSchema,
  run: (params, ctx) =>
    settle<"mtr">(async () => {
      const target = await resolveAndCheck(params.host, {
        allowPrivate: ctx.allowPrivate,
        family: params.ip_version,
        timeoutMs: Math.max(params.timeout_ms, LOOKUP_MIN_MS),
        signal: ctx.signal,
        lookup: ctx.lookup,
      });
      const { detail, sendError } = await rounds(target.address, target.family, params, ctx);
      if (sendError) throw new ProbeFailure(sendError.code, sendError.message, detail);
      if (ctx.signal?.aborted) throw new ProbeFailure("timeout", "stopped at the deadline", detail);
      const last = detail.hops[detail.hops.length - 1];
      return { detail, latency_ms: detail.reached ? (last?.avg ?? null) : null };
    }),
};

interface Waiting {
  ttl: number;
  sentAt: bigint;
  done: (answer: MtrAnswer | null) => void;
}

async function rounds(address: string, family: 4 | 6, params: MtrParams, ctx: ProbeContext) {
  const { signal, onProgress } = ctx;
  const port = mtrPort(params);
  const stats: HopStats[] = [];
  const hop = (ttl: number): HopStats => {
    let s = stats[ttl];
    if (!s) {
      s = { sent: 0, rtts: [], last: null, ips: new Map() };
      stats[ttl] = s;
    }
    return s;
  };
  let endTtl = Number.POSITIVE_INFINITY;
  let lastAnswered = 0;
  const reachedAt = new Set<number>();
  const waiting = new Map<number, Waiting>();
  const sender: MtrSender = await openSender(params.mode, family, address, port, (a) => {
    waiting.get(a.seq)?.done(a);
  });
  const inFlight = new Set<Waiting>();
  const removeAbort = onAbort(signal, () => {
    for (const w of [...inFlight]) w.done(null);
  });
  const wait = Math.min(params.timeout_ms, params.interval_ms);
  let seq = 0;
  let completed = 0;
  let sentAny = false as boolean;
  let sendError = null as ProbeFailure | null;

  const probe = (ttl: number, n: number) =>
    new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const entry: Waiting = {
        ttl,
        sentAt: 0n,
        done: (answer) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          waiting.delete(n);
          inFlight.delete(entry);
          sender.forget(n);
          if (answer) {
            const s = hop(ttl);
            const rtt = elapsedMs(entry.sentAt, answer.receivedAt);
            s.rtts.push(rtt);
            s.last = rtt;
            s.ips.set(answer.source, (s.ips.get(answer.source) ?? 0) + 1);
            lastAnswered = Math.max(lastAnswered, ttl);
            if (answer.final) {
              endTtl = Math.min(endTtl, ttl);
              if (answer.reachedTarget) reachedAt.add(ttl);
            }
          } else if (signal?.aborted && entry.sentAt !== 0n) {
            hop(ttl).sent -= 1; // in flight at the deadline: neither answered nor lost
          }
          resolve();
        },
      };
      inFlight.add(entry);
      sender.send(ttl, n).then(
        (sentAt) => {
          if (settled) return;
          entry.sentAt = sentAt;
          hop(ttl).sent += 1;
          sentAny = true;
          waiting.set(n, entry);
          timer = replyDeadline(() => entry.done(null), wait);
        },
        (error: unknown) => {
          sendError ??= toProbeFailure(error);
          entry.done(null);
        },
      );
    });

  try {
    for (let round = 0; round < params.rounds && !signal?.aborted; round++) {
      const began = performance.now();
      const limit = Math.min(params.max_hops, endTtl);
      const batch: Promise<void>[] = [];
      for (let ttl = 1; ttl <= limit; ttl++) {
        seq = (seq % 0xffff) + 1;
        batch.push(probe(ttl, seq));
      }
      await Promise.all(batch);
      if (signal?.aborted) break;
      completed += 1;
      // Every send of the first round failed: the next would too (no route, no IPv6).
      if (!sentAny) break;
      // The run so far, once per round, for live streams; the last round's is the result itself.
      if (onProgress && round + 1 < params.rounds) onProgress(summary());
      if (round + 1 < params.rounds) await pause(params.interval_ms - (performance.now() - began), signal);
    }
  } finally {
    removeAbort();
    sender.close();
  }
  return { detail: summary(), sendError: sentAny ? null : sendError };

  /** The result of the rounds completed so far. */
  function summary(): MtrResult {
    const reached = Number.isFinite(endTtl) && reachedAt.has(endTtl);
    const lastHop = Number.isFinite(endTtl) ? endTtl : lastAnswered;
    const hops: MtrHop[] = [];
    for (let ttl = 1; ttl <= lastHop; ttl++) hops.push(toHop(ttl, hop(ttl)));
    return { resolved_ip: address, mode: params.mode, port, rounds: completed, reached, hops };
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const remove = onAbort(signal, done);
    function done() {
      clearTimeout(timer);
      remove();
      resolve();
    }
  });
}

function toHop(ttl: number, s: HopStats): MtrHop {
  const n = s.rtts.length;
  const sum = s.rtts.reduce((a, b) => a + b, 0);
  const avg = n > 0 ? sum / n : null;
  const ssd = avg === null ? 0 : s.rtts.reduce((a, r) => a + (r - avg) ** 2, 0);
  const ips = [...s.ips.entries()].sort((a, b) => b[1] - a[1]).map(([ip]) => ip);
  return {
    hop: ttl,
    ip: ips[0] ?? null,
    ips,
    sent: s.sent,
    received: n,
    loss_pct: s.sent > 0 ? Math.round(((s.sent - n) / s.sent) * 1000) / 10 : 0,
    last: s.last,
    avg: avg === null ? null : roundMs(avg),
    best: n > 0 ? Math.min(...s.rtts) : null,
    worst: n > 0 ? Math.max(...s.rtts) : null,
    stdev: n > 1 ? roundMs(Math.sqrt(ssd / (n - 1))) : null,
  };
}
