import raw from "raw-socket";
import { type Family, icmpTypes } from "./icmp-packet.js";

/** An ICMP error quoting one of mtr's UDP or TCP probes. */
export interface QuotedTransport {
  kind: "time_exceeded" | "unreachable";
  code: number;
  /** 17 (UDP) or 6 (TCP). */
  protocol: number;
  destination: string;
  srcPort: number;
  dstPort: number;
  /** TCP only: the quoted sequence number (the probe's number); 0 for UDP. */
  tcpSeq: number;
}

const v4Text = (b: Buffer, at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
function v6Text(b: Buffer, at: number): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(at + i).toString(16));
  return groups.join(":");
}

/**
 * Reads an ICMP time exceeded or destination unreachable that quotes a UDP or TCP packet (the quote holds
 * at least its first 8 bytes: ports, and TCP's sequence number). IPv4 raw sockets deliver the IP header,
 * IPv6 ones start at the ICMPv6 header. Anything else: null.
 */
export function parseQuotedTransport(family: Family, buf: Buffer): QuotedTransport | null {
  let icmp = buf;
  if (family === 4) {
    if (buf.length < 20) return null;
    icmp = buf.subarray(((buf[0] ?? 0) & 0x0f) * 4);
  }
  if (icmp.length < 8) return null;
  const types = icmpTypes[family];
  const kind =
    icmp[0] === types.timeExceeded ? "time_exceeded" : icmp[0] === types.unreachable ? "unreachable" : null;
  if (kind === null) return null;
  const quoted = icmp.subarray(8);
  let protocol: number;
  let destination: string;
  let inner: Buffer;
  if (family === 4) {
    if (quoted.length < 20) return null;
    protocol = quoted[9] ?? 0;
    destination = v4Text(quoted, 16);
    inner = quoted.subarray(((quoted[0] ?? 0) & 0x0f) * 4);
  } else {
    if (quoted.length < 40) return null;
    protocol = quoted[6] ?? 0;
    destination = v6Text(quoted, 24);
    inner = quoted.subarray(40);
  }
  if ((protocol !== 17 && protocol !== 6) || inner.length < 8) return null;
  return {
    kind,
    code: icmp[1] ?? 0,
    protocol,
    destination,
    srcPort: inner.readUInt16BE(0),
    dstPort: inner.readUInt16BE(2),
    tcpSeq: protocol === 6 ? inner.readUInt32BE(4) : 0,
  };
}

/** A TCP segment received on a raw TCP socket (IPv4 with its IP header, IPv6 without). */
export interface TcpSegment {
  srcPort: number;
  dstPort: number;
  ack: number;
  syn: boolean;
  rst: boolean;
}

export function parseTcpSegment(family: Family, buf: Buffer): TcpSegment | null {
  const tcp = family === 4 ? buf.subarray(((buf[0] ?? 0) & 0x0f) * 4) : buf;
  if (tcp.length < 20) return null;
  const flags = tcp[13] ?? 0;
  return {
    srcPort: tcp.readUInt16BE(0),
    dstPort: tcp.readUInt16BE(2),
    ack: tcp.readUInt32BE(8),
    syn: (flags & 0x02) !== 0,
    rst: (flags & 0x04) !== 0,
  };
}

function addressBytes(family: Family, address: string): Buffer {
  if (family === 4) return Buffer.from(address.split(".").map(Number));
  const [head = "", tail = ""] = address.includes("::") ? address.split("::") : [address, ""];
  const words = (s: string) => (s === "" ? [] : s.split(":").map((w) => Number.parseInt(w, 16)));
  const h = words(head);
  const t = words(tail);
  const all = [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  for (const [i, w] of all.entries()) out.writeUInt16BE(w, i * 2);
  return out;
}

/**
 * A TCP SYN from `srcPort` to `dstPort` with sequence number `seq` and a 20-byte header. IPv4: the checksum
 * over the pseudo-header is ours to write (`source` is the address the kernel will send from); IPv6: the
 * kernel writes it (IPV6_CHECKSUM on the socket), so it stays zero.
 */
export function buildTcpSyn(
  family: Family,
  source: string,
  destination: string,
  srcPort: number,
  dstPort: number,
  seq: number,
): Buffer {
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(srcPort, 0);
  tcp.writeUInt16BE(dstPort, 2);
  tcp.writeUInt32BE(seq >>> 0, 4);
  tcp.writeUInt8(5 << 4, 12); // data offset: 5 words
  tcp.writeUInt8(0x02, 13); // SYN
  tcp.writeUInt16BE(64_240, 14); // window
  if (family === 4) {
    const pseudo = Buffer.alloc(12);
    addressBytes(4, source).copy(pseudo, 0);
    addressBytes(4, destination).copy(pseudo, 4);
    pseudo.writeUInt8(6, 9);
    pseudo.writeUInt16BE(tcp.length, 10);
    raw.writeChecksum(tcp, 16, raw.createChecksum(pseudo, tcp));
  }
  return tcp;
}
