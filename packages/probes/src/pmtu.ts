import { ECHO_OVERHEAD, type Family, FRAGMENTATION_NEEDED } from "./icmp-packet.js";
import type { ReceivedIcmp } from "./icmp-socket.js";
import { leaseIcmp } from "./icmp-socket.js";
import { onAbort } from "./outcome.js";
import { PMTU_MAX_PROBES } from "./probe-params.js";
import { sameAddress } from "./same-address.js";

/** The smallest MTU each family guarantees (RFC 791, RFC 8200): the search's floor. */
export const MIN_MTU = { 4: 68, 6: 1280 } as const;

type Try = { passed: true } | { passed: false; mtu: number | null };

/**
 * The largest IP packet (bytes, headers included) that reaches `address` and brings its echo reply back
 * with DF set, from `MIN_MTU` up to `max`: `max` first, then a binary search. A router's "fragmentation
 * needed" / "packet too big" names its next hop's MTU: the search jumps there. A send the kernel refuses
 * (EMSGSIZE: the path MTU it learnt is smaller) fails at once; silence fails after `timeoutMs`, so a lost
 * echo reads as "too big" (one try per size, at most PMTU_MAX_PROBES). Null when even the floor fails.
 */
export async function discoverPmtu(
  address: string,
  family: Family,
  max: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<number | null> {
  // Below the family's minimum MTU only when asked for less (`size` under it): then `max` alone is tried.
  const floor = Math.min(MIN_MTU[family], max);
  const waiting = new Map<number, (t: Try) => void>();
  const onMessage = (m: ReceivedIcmp): void => {
    const done = waiting.get(m.seq);
    if (!done) return;
    if (m.kind === "echo_reply") {
      if (sameAddress(m.source, address)) done({ passed: true });
      return;
    }
    if (!m.quotedDestination || !sameAddress(m.quotedDestination, address)) return;
    const tooBig = m.kind === "too_big" || (m.kind === "unreachable" && m.code === FRAGMENTATION_NEEDED);
    if (tooBig) done({ passed: false, mtu: m.mtu ? m.mtu : null });
  };
  const lease = leaseIcmp(family, onMessage);
  let seq = 0;
  const attempt = (size: number): Promise<Try> =>
    new Promise<Try>((resolve) => {
      seq += 1;
      const mySeq = seq;
      let timer: NodeJS.Timeout | undefined;
      const finish = (t: Try): void => {
        if (!waiting.has(mySeq)) return;
        waiting.delete(mySeq);
        clearTimeout(timer);
        removeAbort();
        resolve(t);
      };
      waiting.set(mySeq, finish);
      const removeAbort = onAbort(signal, () => finish({ passed: false, mtu: null }));
      lease
        .send(address, mySeq, undefined, {
          payloadBytes: Math.max(0, size - ECHO_OVERHEAD[family]),
          dontFragment: true,
        })
        .then(
          () => {
            if (waiting.has(mySeq)) timer = setTimeout(() => finish({ passed: false, mtu: null }), timeoutMs);
          },
          // EMSGSIZE: larger than the path MTU the kernel learnt. Any other refusal (no route) passes nothing
          // either: the search ends with null unless a smaller size got through.
          () => finish({ passed: false, mtu: null }),
        );
    });
  // Largest size known to pass, smallest known to fail.
  let passed = floor - 1;
  let failed = max + 1;
  let next = max;
  try {
    for (let probes = 0; probes < PMTU_MAX_PROBES && failed - passed > 1 && !signal?.aborted; probes++) {
      const t = await attempt(next);
      if (t.passed) passed = next;
      else {
        failed = next;
        // The router's word: nothing above its next hop's MTU passes.
        if (t.mtu !== null && t.mtu >= floor && t.mtu < failed) failed = t.mtu + 1;
      }
      const hinted = t.passed ? null : t.mtu;
      next =
        hinted !== null && hinted > passed && hinted < failed ? hinted : Math.floor((passed + failed) / 2);
      if (next < floor) next = floor;
    }
  } finally {
    lease.release();
  }
  return passed >= floor ? passed : null;
}
