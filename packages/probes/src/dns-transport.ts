import { createSocket } from "node:dgram";
import { connect } from "node:net";
import * as dnsPacket from "dns-packet";
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
function once<T>(cleanup: () => void) {
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
    cleanup();
    fn();
  };
  return {
    promise,
    resolve: (v: T) => settleWith(() => resolveFn(v)),
    reject: (e: unknown) => settleWith(() => rejectFn(e)),
  };
}

const timeoutError = (x: Exchange, proto: string) =>
  new ProbeFailure("timeout", `no ${proto} answer from ${x.address}:${x.port} within ${x.timeoutMs} ms`);

/** One query over UDP. Datagrams from another source or with another id are ignored (spoofing, stale). */
export function queryUdp(query: Buffer, id: number, x: Exchange): Promise<dnsPacket.DecodedPacket> {
  const socket = createSocket(x.family === 6 ? "udp6" : "udp4");
  const s = once<dnsPacket.DecodedPacket>(() => {
    clearTimeout(timer);
    removeAbort();
    socket.close();
  });
  const timer = setTimeout(() => s.reject(timeoutError(x, "UDP")), x.timeoutMs);
  const removeAbort = onAbort(x.signal, () => s.reject(new ProbeFailure("timeout", "aborted")));
  socket.on("error", (error) => s.reject(toProbeFailure(error)));
  socket.on("message", (msg, rinfo) => {
    // By value: a server written `0:0:0:0:0:0:0:1` or `::ffff:7f00:1` answers from `::1`/`::ffff:127.0.0.1`.
    if (!sameAddress(rinfo.address, x.address) || rinfo.port !== x.port) return;
    try {
      const packet = dnsPacket.decode(msg);
      if (packet.id === id && packet.type === "response") s.resolve(packet);
    } catch {
      // A malformed datagram is not our answer; keep waiting for the real one until the timeout.
    }
  });
  socket.send(query, x.port, x.address, (error) => {
    if (error) s.reject(toProbeFailure(error));
  });
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
      try {
        const packet = dnsPacket.decode(message);
        if (packet.id === id) return s.resolve(packet);
      } catch (error) {
        return s.reject(new ProbeFailure("probe_error", `malformed DNS answer over TCP: ${String(error)}`));
      }
    }
  });
  socket.on("error", (error) => s.reject(toProbeFailure(error)));
  socket.on("end", () => s.reject(new ProbeFailure("probe_error", "server closed the TCP connection")));
  return s.promise;
}
