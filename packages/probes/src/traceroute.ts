import { elapsedMs, replyDeadline } from "./clock.js";
import { type IcmpLease, leaseIcmp, type ReceivedIcmp } from "./icmp-socket.js";
import { onAbort, settle } from "./outcome.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { type TracerouteParams, tracerouteParamsSchema } from "./probe-params.js";
import type { TracerouteResult } from "./probe-results.js";
import { sameAddress } from "./same-address.js";
import { resolveAndCheck } from "./target-guard.js";
import type { Probe } from "./types.js";

type Hop = TracerouteResult["hops"][number];

/** Probes in flight at once, as `traceroute -N 16`: whole hops only, so a window is a few hops deep. */
const SIMULTANEOUS_PROBES = 16;

/**
 * ICMP echo traceroute (`traceroute -I -n`): for TTL 1, 2, … send `queries_per_hop` echoes, collect the
 * time-exceeded answers (matched by the echo id and sequence quoted in them, and the quoted destination),
 * and stop at the first hop where the target answers (echo reply) or an unreachable comes back. Hops are
 * probed a window at a time, like traceroute's parallel probes; hops past the final one are dropped.
 */
/** The least time a traceroute gives its target's name lookup. */
const LOOKUP_MIN_MS = 5000;

export const tracerouteProbe: Probe<"traceroute"> = {
  type: "traceroute",
  paramsSchema: tracerouteParamsSchema,
  run: (params, ctx) =>
    settle<"traceroute">(async () => {
      // timeout_ms is a wait per hop (1 s by default), too short for a cold name lookup: the lookup gets at
      // least 5 s, well inside the job's budget of hops × probes × timeout_ms. It stops on abort too.
      const target = await resolveAndCheck(params.host, {
        allowPrivate: ctx.allowPrivate,
        family: params.ip_version,
        timeoutMs: Math.max(params.timeout_ms, LOOKUP_MIN_MS),
        signal: ctx.signal,
        lookup: ctx.lookup,
      });
      const { detail, sendError } = await trace(target.address, target.family, params, ctx.signal);
      // Not one probe left the node (no route, a broadcast address, no IPv6): the node could not trace at
      // all, which is the send's error, not a path of `*` hops.
      if (sendError) throw new ProbeFailure(sendError.code, sendError.message, detail);
      if (ctx.signal?.aborted) throw new ProbeFailure("timeout", "stopped at the deadline", detail);
      const last = detail.hops[detail.hops.length - 1];
      const latency = detail.reached ? (last?.rtts.find((r) => r !== null) ?? null) : null;
      return { detail, latency_ms: latency };
    }),
};

interface Query {
  ttl: number;
  rtt: number | null;
  ip: string | null;
  /** The answer ends the trace: echo reply or destination unreachable. */
  final: boolean;
  reachedTarget: boolean;
  /** Why the probe never left the node; null once it was sent. */
  sendError: ProbeFailure | null;
}

async function trace(address: string, family: 4 | 6, params: TracerouteParams, signal?: AbortSignal) {
  const waiting = new Map<number, { sentAt: bigint; query: Query; done: () => void }>();
  const onMessage = (m: ReceivedIcmp): void => {
    const w = waiting.get(m.seq);
    if (!w) return;
    if (m.kind !== "echo_reply") {
      // An error counts only when it quotes a packet we sent to this target.
      if (!m.quotedDestination || !sameAddress(m.quotedDestination, address)) return;
    }
    w.query.rtt = elapsedMs(w.sentAt, m.receivedAt);
    w.query.ip = m.source;
    w.query.final = m.kind !== "time_exceeded";
    w.query.reachedTarget = m.kind === "echo_reply" || sameAddress(m.source, address);
    w.done();
  };
  const lease = leaseIcmp(family, onMessage);
  // One listener on the job's signal for all probes in flight (a window holds up to SIMULTANEOUS_PROBES:
  // one listener each went past Node's 10-listener warning).
  const inFlight = new Set<() => void>();
  const removeAbort = onAbort(signal, () => {
    for (const done of [...inFlight]) done();
  });
  const hops: Hop[] = [];
  let reached = false;
  let seq = 0;
  let sentAny = false;
  let sendError: ProbeFailure | null = null;
  const window = Math.max(1, Math.floor(SIMULTANEOUS_PROBES / params.queries_per_hop));
  try {
    for (let first = 1; first <= params.max_hops && !signal?.aborted; first += window) {
      const last = Math.min(params.max_hops, first + window - 1);
      const batch: Promise<Query>[] = [];
      for (let ttl = first; ttl <= last; ttl++) {
        for (let q = 0; q < params.queries_per_hop; q++) {
          seq += 1;
          batch.push(probe(lease, address, ttl, seq, params.timeout_ms, waiting, inFlight));
        }
      }
      const queries = await Promise.all(batch);
      sendError ??= queries.find((q) => q.sendError !== null)?.sendError ?? null;
      const sentNone = queries.every((q) => q.sendError !== null);
      if (!sentNone) sentAny = true;
      // Every send of the window failed: the next window's would too (traceroute stops at a send error).
      if (sentNone) break;
      let stop = false;
      for (let ttl = first; ttl <= last && !stop; ttl++) {
        const mine = queries.filter((q) => q.ttl === ttl);
        hops.push(toHop(ttl, mine));
        if (mine.some((q) => q.final)) {
          stop = true;
          reached = mine.some((q) => q.reachedTarget);
        }
      }
      if (stop) break;
    }
  } finally {
    removeAbort();
    lease.release();
  }
  const detail = { resolved_ip: address, reached, hops } satisfies TracerouteResult;
  return { detail, sendError: sentAny ? null : sendError };
}

function probe(
  lease: IcmpLease,
  address: string,
  ttl: number,
  seq: number,
  timeoutMs: number,
  waiting: Map<number, { sentAt: bigint; query: Query; done: () => void }>,
  /** Every probe's `done` until it is: an abort of the job ends them all. */
  inFlight: Set<() => void>,
): Promise<Query> {
  const query: Query = { ttl, rtt: null, ip: null, final: false, reachedTarget: false, sendError: null };
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      waiting.delete(seq);
      inFlight.delete(done);
      resolve(query);
    };
    inFlight.add(done);
    lease.send(address, seq, ttl).then(
      (sentAt) => {
        if (settled) return; // ended (the job aborted) before the packet was out
        waiting.set(seq, { sentAt, query, done });
        timer = replyDeadline(done, timeoutMs);
      },
      // A send error (no route, say) is a `*` for its hop; the trace fails with it only if no probe got out.
      (error: unknown) => {
        query.sendError = toProbeFailure(error);
        done();
      },
    );
  });
}

/** The hop's address is its first responder, as traceroute prints it; every probe keeps its own. */
function toHop(ttl: number, queries: Query[]): Hop {
  return {
    hop: ttl,
    ip: queries.find((q) => q.ip !== null)?.ip ?? null,
    hostname: null,
    rtts: queries.map((q) => q.rtt),
    probe_ips: queries.map((q) => q.ip),
  };
}
