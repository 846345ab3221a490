import { createSocket } from "node:dgram";
import { connect } from "node:net";
import type * as dnsPacket from "dns-packet";
import { parseMessage } from "./dns-message.js";
import { onAbort } from "./outcome.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { sameAddress } from "./same-address.js";

export interface Exchange {
  address: string;
  family: 4 | 6;
  port: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** Settles once: every path (answer, error, timeout, abort) runs `cleanup` exactly one time. */
export function once<T>(cleanup: () => void) {
  let done = false;
  let resolveFn: (v: T) => void = () => {};
  let rejectFn: (e: unknown) => void = () => {};
  const promise = new Promise<T>((resolve, reject) => {
    resolveFn = resolve;
    rejectFn = reject;
  });
  const settleWith = (fn: () => void) => {
    if (done) return;
    done = true;
    // Settling runs inside timers and socket events, where a throw ends the process: a cleanup that
    // fails (a socket already gone) must still let the query settle.
    try {
      cleanup();
    } catch {}
    fn();
  };
  return {
    promise,
    resolve: (v: T) => settleWith(() => resolveFn(v)),
    reject: (e: unknown) => settleWith(() => rejectFn(e)),
  };
}

const serverName = (x: Exchange) => (x.family === 6 ? `[${x.address}]:${x.port}` : `${x.address}:${x.port}`);

const timeoutError = (x: Exchange, proto: string) =>
  new ProbeFailure("timeout", `no ${proto} answer from ${serverName(x)} within ${x.timeoutMs} ms`);

const malformedError = (x: Exchange, proto: string, reason: string) =>
  new ProbeFailure("probe_error", `malformed answer from ${serverName(x)} over ${proto}: ${reason}`);

/**
 * One query over UDP, on a connected socket. Datagrams from another source or with another id are ignored
 * (spoofing, stale), as dig does. A broken datagram carrying our id is the answer, and it ends the query as malformed; one that
 * cannot be matched to the query (another id, too short for one) is set aside, and if nothing valid
 * follows, the query ends as malformed rather than as a timeout that would say nothing arrived.
 */
export function queryUdp(query: Buffer, id: number, x: Exchange): Promise<dnsPacket.DecodedPacket> {
  const socket = createSocket(x.family === 6 ? "udp6" : "udp4");
  const s = once<dnsPacket.DecodedPacket>(() => {
    clearTimeout(timer);
    removeAbort();
    socket.close();
  });
  let malformed: string | null = null;
  const timer = setTimeout(
    () => s.reject(malformed === null ? timeoutError(x, "UDP") : malformedError(x, "UDP", malformed)),
    x.timeoutMs,
  );
  const removeAbort = onAbort(x.signal, () => s.reject(new ProbeFailure("timeout", "aborted")));
  socket.on("error", (error) =>
    s.reject(
      (error as NodeJS.ErrnoException).code === "ECONNREFUSED"
        ? new ProbeFailure("connection_refused", `${serverName(x)} refused the UDP query (port unreachable)`)
        : toProbeFailure(error),
    ),
  );
  socket.on("message", (msg, rinfo) => {
    // By value: a server written `0:0:0:0:0:0:0:1` or `::ffff:7f00:1` answers from `::1`/`::ffff:127.0.0.1`.
    if (!sameAddress(rinfo.address, x.address) || rinfo.port !== x.port) return;
    const parsed = parseMessage(msg);
    if (parsed.ok) {
      if (parsed.packet.id === id && parsed.packet.type === "response") s.resolve(parsed.packet);
    } else if (parsed.id === id) {
      s.reject(malformedError(x, "UDP", parsed.reason));
    } else {
      malformed ??= parsed.reason;
    }
  });
  // Connected, as dig's socket is: a server whose port is closed answers with ICMP port unreachable, which a
  // connected socket reports at once (ECONNREFUSED) instead of leaving the query to its timeout.
  // A connect that fails (no route to the server, a broadcast address) hands its error to this callback and
  // leaves the socket unconnected: sending then would throw outside any handler, so it ends the query here.
  try {
    socket.connect(x.port, x.address, (error?: Error) => {
      if (error) return s.reject(toProbeFailure(error));
      try {
        socket.send(query, (sendError) => {
          if (sendError) s.reject(toProbeFailure(sendError));
        });
      } catch (sendError) {
        s.reject(toProbeFailure(sendError));
      }
    });
  } catch (error) {
    s.reject(toProbeFailure(error));
  }
  return s.promise;
}

/** One query over TCP: two-byte length prefix each way (RFC 1035 §4.2.2). */
export function queryTcp(query: Buffer, id: number, x: Exchange): Promise<dnsPacket.DecodedPacket> {
  const socket = connect({ host: x.address, port: x.port, family: x.family });
  const s = once<dnsPacket.DecodedPacket>(() => {
    clearTimeout(timer);
    removeAbort();
    socket.destroy();
  });
  const timer = setTimeout(() => s.reject(timeoutError(x, "TCP")), x.timeoutMs);
  const removeAbort = onAbort(x.signal, () => s.reject(new ProbeFailure("timeout", "aborted")));
  let buffered = Buffer.alloc(0);
  socket.on("connect", () => {
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16BE(query.length);
    socket.write(Buffer.concat([prefix, query]));
  });
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2) {
      const length = buffered.readUInt16BE(0);
      if (buffered.length < length + 2) return;
      const message = buffered.subarray(2, length + 2);
      buffered = buffered.subarray(length + 2);
      // The connection is the server's own: anything broken on it is its answer, whatever the id says.
      const parsed = parseMessage(message);
      if (!parsed.ok) return s.reject(malformedError(x, "TCP", parsed.reason));
      if (parsed.packet.id === id) return s.resolve(parsed.packet);
    }
  });
  socket.on("error", (error) => s.reject(toProbeFailure(error)));
  socket.on("end", () => {
    if (buffered.length === 0) {
      return s.reject(new ProbeFailure("probe_error", "server closed the TCP connection"));
    }
    const reason =
      buffered.length < 2
        ? "connection closed inside the length prefix"
        : `connection closed after ${buffered.length - 2} of ${buffered.readUInt16BE(0)} bytes`;
    s.reject(malformedError(x, "TCP", reason));
  });
  return s.promise;
}
