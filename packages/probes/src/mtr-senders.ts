import { randomInt } from "node:crypto";
import dgram from "node:dgram";
import raw, { type Socket as RawSocket } from "raw-socket";
import { now } from "./clock.js";
import type { Family } from "./icmp-packet.js";
import { leaseIcmp, watchIcmp } from "./icmp-socket.js";
import { buildTcpSyn, parseQuotedTransport, parseTcpSegment } from "./mtr-packet.js";
import { toProbeFailure } from "./probe-failure.js";
import type { MtrParams } from "./probe-params.js";
import { sameAddress } from "./same-address.js";

/** An answer to probe `seq`: from a hop on the way (time exceeded) or the end of the path. */
export interface MtrAnswer {
  seq: number;
  source: string;
  receivedAt: bigint;
  /** Ends the path: the target answered, or an unreachable came back. */
  final: boolean;
  reachedTarget: boolean;
}

export interface MtrSender {
  /** Sends probe `seq` (1–65535) with hop limit `ttl`; resolves with the send time. */
  send(ttl: number, seq: number): Promise<bigint>;
  /** The probe is settled (answered or given up): its resources may go. */
  forget(seq: number): void;
  close(): void;
}

type OnAnswer = (answer: MtrAnswer) => void;

/** The default destination port per mode: mtr's (`-T` 80, `-u` 33434). */
export function mtrPort(params: Pick<MtrParams, "mode" | "port">): number | null {
  if (params.mode === "icmp") return null;
  return params.port ?? (params.mode === "tcp" ? 80 : 33434);
}

export async function openSender(
  mode: MtrParams["mode"],
  family: Family,
  address: string,
  port: number | null,
  onAnswer: OnAnswer,
): Promise<MtrSender> {
  if (mode === "icmp") return icmpSender(family, address, onAnswer);
  if (mode === "udp") return udpSender(family, address, port ?? 33434, onAnswer);
  return tcpSender(family, address, port ?? 80, onAnswer);
}

/** ICMP echo with the hop limit: the shared raw socket, as traceroute -I. */
function icmpSender(family: Family, address: string, onAnswer: OnAnswer): MtrSender {
  const lease = leaseIcmp(family, (m) => {
    if (m.kind !== "echo_reply" && (!m.quotedDestination || !sameAddress(m.quotedDestination, address)))
      return;
    const reachedTarget = m.kind === "echo_reply" || sameAddress(m.source, address);
    onAnswer({
      seq: m.seq,
      source: m.source,
      receivedAt: m.receivedAt,
      final: m.kind !== "time_exceeded",
      reachedTarget,
    });
  });
  return {
    send: (ttl, seq) => lease.send(address, seq, ttl),
    forget: () => {},
    close: () => lease.release(),
  };
}

/**
 * UDP: each probe is sent from its own socket (so its own source port names it, and its own hop limit
 * cannot race another probe's), to one destination port; the answers are ICMP errors quoting it (time
 * exceeded on the way, port unreachable from the target), read on the shared raw ICMP socket.
 */
function udpSender(family: Family, address: string, port: number, onAnswer: OnAnswer): MtrSender {
  const bySourcePort = new Map<number, number>();
  const sockets = new Map<number, dgram.Socket>();
  const release = watchIcmp(family, (buffer, source, receivedAt) => {
    const q = parseQuotedTransport(family, buffer);
    if (q?.protocol !== 17 || q.dstPort !== port || !sameAddress(q.destination, address)) return;
    const seq = bySourcePort.get(q.srcPort);
    if (seq === undefined) return;
    const final = q.kind === "unreachable";
    onAnswer({ seq, source, receivedAt, final, reachedTarget: final && sameAddress(source, address) });
  });
  const forget = (seq: number) => {
    const socket = sockets.get(seq);
    if (!socket) return;
    sockets.delete(seq);
    for (const [p, s] of bySourcePort) if (s === seq) bySourcePort.delete(p);
    socket.close();
  };
  return {
    async send(ttl, seq) {
      const socket = dgram.createSocket(family === 4 ? "udp4" : "udp6");
      socket.on("error", () => {}); // errors reach the send callback; late ICMP errors are read raw
      sockets.set(seq, socket);
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once("error", reject);
          socket.bind(0, () => {
            socket.off("error", reject);
            resolve();
          });
        });
        socket.setTTL(ttl);
        bySourcePort.set(socket.address().port, seq);
        const sentAt = now();
        await new Promise<void>((resolve, reject) =>
          socket.send(Buffer.alloc(36), port, address, (error) => (error ? reject(error) : resolve())),
        );
        return sentAt;
      } catch (error) {
        forget(seq);
        throw toProbeFailure(error, null, { target: address, syscall: "send" });
      }
    },
    forget,
    close() {
      for (const seq of [...sockets.keys()]) forget(seq);
      release();
    },
  };
}

/** The address this host sends from towards `address` (a connected UDP socket's own address). */
async function sourceAddressFor(family: Family, address: string): Promise<string> {
  const socket = dgram.createSocket(family === 4 ? "udp4" : "udp6");
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.once("error", reject);
      socket.connect(9, address, () => resolve(socket.address().address));
    });
  } finally {
    socket.close();
  }
}

/**
 * TCP SYN from a raw TCP socket (`mtr -T`): one source port per run, the probe's number in the sequence
 * number. Hops answer with ICMP time exceeded quoting it; the target with SYN-ACK (open) or RST (closed),
 * whose acknowledgement number is ours plus one. The kernel, knowing no such connection, resets it.
 */
async function tcpSender(
  family: Family,
  address: string,
  port: number,
  onAnswer: OnAnswer,
): Promise<MtrSender> {
  const source = family === 4 ? await sourceAddressFor(4, address).catch(() => "0.0.0.0") : "::";
  const srcPort = randomInt(33_000, 60_000);
  const base = randomInt(0, 0x7fff_ffff);
  const toSeq = (tcpSeq: number) => {
    const seq = (tcpSeq - base) >>> 0;
    return seq > 0 && seq < 0x10000 ? seq : null;
  };
  let socket: RawSocket;
  try {
    socket = raw.createSocket({
      addressFamily: family === 4 ? raw.AddressFamily.IPv4 : raw.AddressFamily.IPv6,
      protocol: raw.Protocol.TCP,
      bufferSize: 65_535,
    });
    // IPPROTO_IPV6 (41), IPV6_CHECKSUM (7): the kernel fills the TCP checksum at offset 16.
    if (family === 6) socket.setOption(41, 7, 16);
  } catch (error) {
    throw toProbeFailure(error, null, { syscall: "socket" });
  }
  socket.on("error", () => {});
  socket.on("message", (buffer, from) => {
    const receivedAt = now();
    if (!sameAddress(from, address)) return;
    const s = parseTcpSegment(family, buffer);
    if (!s || s.srcPort !== port || s.dstPort !== srcPort || !(s.rst || s.syn)) return;
    const seq = toSeq((s.ack - 1) >>> 0);
    if (seq !== null) onAnswer({ seq, source: from, receivedAt, final: true, reachedTarget: true });
  });
  let release: () => void;
  try {
    release = watchIcmp(family, (buffer, from, receivedAt) => {
      const q = parseQuotedTransport(family, buffer);
      if (q?.protocol !== 6 || q.srcPort !== srcPort || q.dstPort !== port) return;
      if (!sameAddress(q.destination, address)) return;
      const seq = toSeq(q.tcpSeq);
      if (seq === null) return;
      const final = q.kind === "unreachable";
      onAnswer({ seq, source: from, receivedAt, final, reachedTarget: final && sameAddress(from, address) });
    });
  } catch (error) {
    socket.close();
    throw error;
  }
  const level = family === 4 ? raw.SocketLevel.IPPROTO_IP : raw.SocketLevel.IPPROTO_IPV6;
  const option = family === 4 ? raw.SocketOption.IP_TTL : raw.SocketOption.IPV6_UNICAST_HOPS;
  return {
    send(ttl, seq) {
      return new Promise((resolve, reject) => {
        const packet = buildTcpSyn(family, source, address, srcPort, port, (base + seq) >>> 0);
        let sentAt = 0n;
        const before = () => {
          socket.setOption(level, option, ttl);
          sentAt = now();
        };
        const failed = (error: unknown) =>
          reject(toProbeFailure(error, null, { target: address, syscall: "send" }));
        try {
          socket.send(packet, 0, packet.length, address, before, (error) =>
            error ? failed(error) : resolve(sentAt),
          );
        } catch (error) {
          failed(error);
        }
      });
    },
    forget: () => {},
    close() {
      release();
      socket.close();
    },
  };
}
