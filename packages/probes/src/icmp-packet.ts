import raw from "raw-socket";

export type Family = 4 | 6;

/** ICMP types by family: echo request/reply, time exceeded, destination unreachable. */
export const icmpTypes = {
  4: { echoRequest: 8, echoReply: 0, timeExceeded: 11, unreachable: 3, tooBig: null },
  6: { echoRequest: 128, echoReply: 129, timeExceeded: 3, unreachable: 1, tooBig: 2 },
} as const;

/** IPv4 "fragmentation needed and DF set": destination unreachable with this code. */
export const FRAGMENTATION_NEEDED = 4;

/** Bytes of the IP and ICMP headers in front of an echo's payload: a packet's size minus these is its payload. */
export const ECHO_OVERHEAD = { 4: 28, 6: 48 } as const;

/** Payload size iputils ping uses by default (56 data bytes, 64 bytes of ICMP). */
export const ECHO_PAYLOAD_BYTES = 56;

/**
 * An echo request. IPv4 needs our checksum; for ICMPv6 the kernel always fills it in on raw ICMPv6 sockets
 * (RFC 3542 §3.1: Linux fixes the checksum offset at 2 and refuses IPV6_CHECKSUM there), so it stays zero.
 */
export function buildEcho(
  family: Family,
  id: number,
  seq: number,
  payloadBytes: number = ECHO_PAYLOAD_BYTES,
): Buffer {
  const packet = Buffer.alloc(8 + payloadBytes);
  packet.writeUInt8(icmpTypes[family].echoRequest, 0);
  packet.writeUInt16BE(id, 4);
  packet.writeUInt16BE(seq, 6);
  for (let i = 8; i < packet.length; i++) packet[i] = i & 0xff; // iputils-like filler, aids pcap reading
  if (family === 4) raw.writeChecksum(packet, 2, raw.createChecksum(packet));
  return packet;
}

/** `too_big`: ICMPv6 packet too big; IPv4's "fragmentation needed" is `unreachable` code 4. */
export type IcmpKind = "echo_reply" | "time_exceeded" | "unreachable" | "too_big";

/** A received ICMP message that concerns one of our echo requests (directly or by quoting it). */
export interface IcmpMessage {
  kind: IcmpKind;
  code: number;
  id: number;
  seq: number;
  /** IPv4: the reply's TTL from its IP header. IPv6 raw sockets see no IPv6 header: null. */
  ttl: number | null;
  /** For errors: the destination of the quoted original packet (must be our target). */
  quotedDestination: string | null;
  /** IPv4 fragmentation needed, ICMPv6 packet too big: the next hop's MTU the router reports (0: none). */
  mtu?: number;
}

function ipv4Text(buf: Buffer, at: number): string {
  return `${buf[at]}.${buf[at + 1]}.${buf[at + 2]}.${buf[at + 3]}`;
}

function ipv6Text(buf: Buffer, at: number): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(buf.readUInt16BE(at + i).toString(16));
  return groups.join(":");
}

/**
 * Parses what a raw socket delivered. IPv4 raw sockets include the IP header, IPv6 ones start at the
 * ICMPv6 header. Errors are matched through the quoted original: its IP header, then our echo header.
 */
export function parseIcmp(family: Family, buf: Buffer): IcmpMessage | null {
  let icmp = buf;
  let ttl: number | null = null;
  if (family === 4) {
    if (buf.length < 20) return null;
    const ihl = ((buf[0] ?? 0) & 0x0f) * 4;
    ttl = buf[8] ?? null;
    icmp = buf.subarray(ihl);
  }
  if (icmp.length < 8) return null;
  const types = icmpTypes[family];
  const type = icmp[0];
  const code = icmp[1] ?? 0;
  if (type === types.echoReply) {
    return {
      kind: "echo_reply",
      code,
      id: icmp.readUInt16BE(4),
      seq: icmp.readUInt16BE(6),
      ttl,
      quotedDestination: null,
    };
  }
  const kind: IcmpKind | null =
    type === types.timeExceeded
      ? "time_exceeded"
      : type === types.unreachable
        ? "unreachable"
        : type === types.tooBig
          ? "too_big"
          : null;
  if (kind === null) return null;
  // RFC 1191 puts the next-hop MTU in the low 16 bits of the unused word, RFC 4443 uses all 32.
  const mtu =
    kind === "too_big"
      ? icmp.readUInt32BE(4)
      : family === 4 && kind === "unreachable" && code === FRAGMENTATION_NEEDED
        ? icmp.readUInt16BE(6)
        : undefined;
  const quoted = icmp.subarray(8);
  let inner: Buffer;
  let destination: string;
  if (family === 4) {
    if (quoted.length < 20 || quoted[9] !== 1) return null; // quoted packet must be ICMP
    const innerIhl = ((quoted[0] ?? 0) & 0x0f) * 4;
    destination = ipv4Text(quoted, 16);
    inner = quoted.subarray(innerIhl);
  } else {
    if (quoted.length < 40 || quoted[6] !== 58) return null; // next header must be ICMPv6
    destination = ipv6Text(quoted, 24);
    inner = quoted.subarray(40);
  }
  if (inner.length < 8 || inner[0] !== types.echoRequest) return null;
  return {
    kind,
    code,
    id: inner.readUInt16BE(4),
    seq: inner.readUInt16BE(6),
    ttl,
    quotedDestination: destination,
    ...(mtu === undefined ? {} : { mtu }),
  };
}
