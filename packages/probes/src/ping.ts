import { elapsedMs, replyDeadline } from "./clock.js";
import { ECHO_OVERHEAD, ECHO_PAYLOAD_BYTES, FRAGMENTATION_NEEDED } from "./icmp-packet.js";
import type { ReceivedIcmp } from "./icmp-socket.js";
import { type EchoOptions, leaseIcmp } from "./icmp-socket.js";
import { onAbort, settle } from "./outcome.js";
import { lossPercent, rttStats } from "./ping-stats.js";
import { discoverPmtu } from "./pmtu.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { PING_MAX_SIZE, type PingParams, pingParamsSchema } from "./probe-params.js";
import type { PingResult, ProbeErrorCode } from "./probe-results.js";
import { sameAddress } from "./same-address.js";
import { resolveAndCheck } from "./target-guard.js";
import type { Probe } from "./types.js";

type Reply = PingResult["replies"][number];

/**
 * ICMP echo like iputils `ping -c count -i interval -W timeout`: one request every interval (not waiting
 * for the previous answer), each one waited for up to `timeout_ms`, sequence numbers from 1.
 */
export const pingProbe: Probe<"ping"> = {
  type: "ping",
  paramsSchema: pingParamsSchema,
  run: (params, ctx) =>
    settle<"ping">(async () => {
      // The lookup gets the probe's own timeout_ms and stops on abort: a hung resolver is a timeout.
      const target = await resolveAndCheck(params.host, {
        allowPrivate: ctx.allowPrivate,
        family: params.ip_version,
        timeoutMs: params.timeout_ms,
        signal: ctx.signal,
        lookup: ctx.lookup,
      });
      const family = target.family;
      const payloadBytes = Math.max(0, (params.size ?? 0) - ECHO_OVERHEAD[family]);
      const echo: EchoOptions = {
        payloadBytes: params.size === undefined ? ECHO_PAYLOAD_BYTES : payloadBytes,
        ...(params.dont_fragment === undefined ? {} : { dontFragment: params.dont_fragment }),
      };
      const { replies, errors } = await echoes(target.address, family, params, echo, ctx.signal);
      const rtts = replies.flatMap((r) => (r.rtt_ms === null ? [] : [r.rtt_ms]));
      const rtt = rttStats(rtts);
      const detail: PingResult = {
        resolved_ip: target.address,
        packets_sent: replies.length,
        packets_received: rtts.length,
        packet_loss: lossPercent(replies.length, rtts.length),
        rtt,
        replies,
      };
      if (params.size !== undefined || params.dont_fragment !== undefined)
        detail.packet_size = (echo.payloadBytes ?? ECHO_PAYLOAD_BYTES) + ECHO_OVERHEAD[family];
      if (params.pmtu && !ctx.signal?.aborted) {
        const max = params.size ?? PING_MAX_SIZE;
        detail.pmtu = await discoverPmtu(target.address, family, max, params.timeout_ms, ctx.signal);
      }
      if (rtts.length === 0) {
        const [code, message] = errors[0] ?? ["timeout", `no echo reply from ${target.address}`];
        throw new ProbeFailure(code, message, detail);
      }
      return { detail, latency_ms: rtt?.avg ?? null };
    }),
};

interface Pending {
  reply: Reply;
  sentAt: bigint | null;
  timer: NodeJS.Timeout | null;
  settle: () => void;
}

async function echoes(
  address: string,
  family: 4 | 6,
  params: PingParams,
  echo: EchoOptions,
  signal?: AbortSignal,
) {
  const pending = new Map<number, Pending>();
  const errors: [ProbeErrorCode, string][] = [];
  const onMessage = (m: ReceivedIcmp): void => {
    const p = pending.get(m.seq);
    if (!p || p.sentAt === null) return;
    if (m.kind === "echo_reply") {
      // Only the target may answer; a reply from elsewhere with our id is someone else's echo.
      if (!sameAddress(m.source, address)) return;
      p.reply.rtt_ms = elapsedMs(p.sentAt, m.receivedAt);
      p.reply.ttl = m.ttl;
    } else if (!m.quotedDestination || !sameAddress(m.quotedDestination, address)) {
      return;
    } else if (m.kind === "too_big" || (m.kind === "unreachable" && m.code === FRAGMENTATION_NEEDED)) {
      const size = (echo.payloadBytes ?? ECHO_PAYLOAD_BYTES) + ECHO_OVERHEAD[family];
      const mtu = m.mtu ? `, next-hop MTU ${m.mtu}` : "";
      errors.push(["packet_too_big", `${size}-byte packet too big for the path (from ${m.source}${mtu})`]);
    } else if (m.kind === "unreachable") {
      errors.push([
        unreachableCode(family, m.code),
        `destination unreachable (code ${m.code}) from ${m.source}`,
      ]);
    } else {
      return;
    }
    p.settle();
  };
  const lease = leaseIcmp(family, onMessage);
  const replies: Reply[] = [];
  const waits: Promise<void>[] = [];
  try {
    for (let seq = 1; seq <= params.count && !signal?.aborted; seq++) {
      if (seq > 1) await sleep(params.interval_ms, signal);
      if (signal?.aborted) break;
      const reply: Reply = { seq, rtt_ms: null, ttl: null };
      replies.push(reply);
      waits.push(
        new Promise<void>((resolve) => {
          const p: Pending = { reply, sentAt: null, timer: null, settle: () => {} };
          let settled = false;
          // Each echo's wait ends once, however it ends; its abort listener goes with it, or a long ping
          // would pile one listener per echo onto the caller's signal.
          p.settle = () => {
            settled = true;
            if (p.timer) clearTimeout(p.timer);
            removeAbort();
            pending.delete(seq);
            resolve();
          };
          pending.set(seq, p);
          const removeAbort = onAbort(signal, () => p.settle());
          lease.send(address, seq, undefined, echo).then(
            (sentAt) => {
              p.sentAt = sentAt;
              // Aborted while the send was queued: no point waiting for a reply nobody will read.
              if (!settled) p.timer = replyDeadline(p.settle, params.timeout_ms);
            },
            (error: unknown) => {
              const failure = toProbeFailure(error);
              errors.push([failure.code, failure.message]);
              p.settle();
            },
          );
        }),
      );
    }
    await Promise.all(waits);
  } finally {
    lease.release();
  }
  return { replies, errors };
}

/** ICMP unreachable codes that mean "no route" vs "no such host". */
function unreachableCode(family: 4 | 6, code: number): ProbeErrorCode {
  if (family === 4)
    return code === 0 || code === 6 || code === 11 ? "network_unreachable" : "host_unreachable";
  return code === 0 ? "network_unreachable" : "host_unreachable";
}

/** Waits `ms`, or less if `signal` aborts; leaves no listener behind either way. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      removeAbort();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const removeAbort = onAbort(signal, done);
  });
}
