import { randomInt } from "node:crypto";
import raw, { type Socket as RawSocket } from "raw-socket";
import { now } from "./clock.js";
import { buildEcho, type Family, type IcmpMessage, parseIcmp } from "./icmp-packet.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";

export type ReceivedIcmp = IcmpMessage & { source: string; receivedAt: bigint };
type Handler = (message: ReceivedIcmp) => void;

type RawHandler = (buffer: Buffer, source: string, receivedAt: bigint) => void;

interface Shared {
  socket: RawSocket;
  handlers: Map<number, Handler>;
  /** mtr's UDP and TCP modes: every ICMP packet as received (errors quoting their UDP/TCP probes). */
  watchers: Set<RawHandler>;
  defaultHops: number;
  /** The socket's path MTU discovery mode as opened (the system's default), restored for plain sends. */
  defaultPmtuMode: number;
}

/**
 * One raw socket per family for the whole process, shared by every ping and traceroute running at once:
 * the kernel hands each raw ICMP socket a copy of every ICMP packet, so one socket with a dispatcher keyed
 * by echo identifier is cheaper than one socket per run and demultiplexes just as well. The socket is
 * closed when the last lease ends, so an idle agent (or a test run) holds no handle open.
 */
const shared = new Map<Family, Shared>();

const levels = () =>
  ({
    4: [raw.SocketLevel.IPPROTO_IP, raw.SocketOption.IP_TTL],
    6: [raw.SocketLevel.IPPROTO_IPV6, raw.SocketOption.IPV6_UNICAST_HOPS],
  }) as const;

/**
 * Path MTU discovery per family (linux/in.h, linux/in6.h): IP_MTU_DISCOVER / IPV6_MTU_DISCOVER, whose
 * `DO` mode sets DF (IPv4) and never fragments locally: a packet over the known path MTU fails its send
 * with EMSGSIZE, and a router whose next link is smaller answers "fragmentation needed" / "packet too big".
 * `DONT` clears DF, so IPv4 routers fragment (IPv6 routers never do; the node may, at the source).
 */
const PMTU_OPTION = { 4: [0, 10], 6: [41, 23] } as const;
const PMTUDISC_DONT = 0;
const PMTUDISC_DO = 2;

function open(family: Family): Shared {
  const existing = shared.get(family);
  if (existing) return existing;
  let socket: RawSocket;
  try {
    socket = raw.createSocket({
      addressFamily: family === 4 ? raw.AddressFamily.IPv4 : raw.AddressFamily.IPv6,
      protocol: family === 4 ? raw.Protocol.ICMP : raw.Protocol.ICMPv6,
      bufferSize: 65_535,
    });
  } catch (error) {
    throw openFailure(family, error);
  }
  let read: number;
  let pmtuMode: number;
  try {
    // A burst of replies (many concurrent pings, a traceroute window) must not overflow the kernel queue.
    socket.setOption(raw.SocketLevel.SOL_SOCKET, raw.SocketOption.SO_RCVBUF, 1 << 20);
    const [level, option] = levels()[family];
    const value = Buffer.alloc(4);
    socket.getOption(level, option, value, 4);
    read = value.readInt32LE(0);
    const [pmtuLevel, pmtuOption] = PMTU_OPTION[family];
    socket.getOption(pmtuLevel, pmtuOption, value, 4);
    pmtuMode = value.readInt32LE(0);
  } catch (error) {
    // Not kept: close it, or every failed run would leak one descriptor.
    socket.close();
    throw toProbeFailure(error, null, { syscall: "setsockopt" });
  }
  const entry: Shared = {
    socket,
    handlers: new Map(),
    watchers: new Set(),
    defaultHops: read > 0 ? read : 64,
    defaultPmtuMode: pmtuMode,
  };
  socket.on("message", (buffer, source) => {
    const receivedAt = now();
    for (const watch of entry.watchers) watch(buffer, source, receivedAt);
    const message = parseIcmp(family, buffer);
    if (!message) return;
    entry.handlers.get(message.id)?.({ ...message, source, receivedAt });
  });
  // raw-socket closes the socket after an error; forget it so the next lease opens a fresh one.
  socket.on("error", () => {
    if (shared.get(family) === entry) shared.delete(family);
  });
  shared.set(family, entry);
  return entry;
}

/**
 * Why no raw socket: without CAP_NET_RAW (EPERM) ping and traceroute are unavailable on this node, as
 * ever; out of descriptors or without IPv6 it is the node's state, and the message says which.
 */
function openFailure(family: Family, error: unknown): ProbeFailure {
  const failure = toProbeFailure(error, null, { syscall: "socket" });
  if (failure.code === "icmp_unavailable" || failure.code === "resources_exhausted") return failure;
  if (failure.code === "ipv6_unavailable" && family === 6) return failure;
  return new ProbeFailure(
    "icmp_unavailable",
    `cannot open a raw ICMP socket (needs root or CAP_NET_RAW): ${(error as Error).message}`,
  );
}

export interface EchoOptions {
  payloadBytes?: number;
  dontFragment?: boolean;
}

export interface IcmpLease {
  readonly id: number;
  readonly family: Family;
  /**
   * Sends echo `seq` with the given hop limit (default: the system's); resolves with the send time. With
   * `options`: the echo's payload size, and DF set (true) or cleared (false) instead of the system's mode.
   */
  send(address: string, seq: number, hopLimit?: number, options?: EchoOptions): Promise<bigint>;
  release(): void;
}

/** Takes an unused echo identifier on the family's shared socket; `onMessage` gets only that id's traffic. */
export function leaseIcmp(family: Family, onMessage: Handler): IcmpLease {
  const entry = open(family);
  let id = randomInt(1, 0x10000);
  for (let tries = 0; entry.handlers.has(id); tries++) {
    if (tries > 0x10000) throw new ProbeFailure("probe_error", "no free ICMP identifier");
    id = (id % 0xffff) + 1;
  }
  entry.handlers.set(id, onMessage);
  const [level, option] = levels()[family];
  let released = false;
  return {
    id,
    family,
    send(address, seq, hopLimit, options = {}) {
      return new Promise((resolve, reject) => {
        const packet = buildEcho(family, id, seq, options.payloadBytes);
        const df = options.dontFragment;
        const pmtuMode = df === undefined ? entry.defaultPmtuMode : df ? PMTUDISC_DO : PMTUDISC_DONT;
        const [pmtuLevel, pmtuOption] = PMTU_OPTION[family];
        let sentAt = 0n;
        // Set right before sendto, inside raw-socket's send queue: the option is per socket, and other
        // runs share this socket with their own hop limits.
        const before = () => {
          entry.socket.setOption(level, option, hopLimit ?? entry.defaultHops);
          entry.socket.setOption(pmtuLevel, pmtuOption, pmtuMode);
          sentAt = now();
        };
        // raw-socket's errors carry strerror's text alone: say what the send was aimed at.
        const failed = (error: unknown) =>
          reject(toProbeFailure(error, null, { target: address, syscall: "send" }));
        try {
          entry.socket.send(packet, 0, packet.length, address, before, (error) => {
            if (error) failed(error);
            else resolve(sentAt);
          });
        } catch (error) {
          // A socket closed by an earlier error throws here rather than in the callback.
          failed(error);
        }
      });
    },
    release() {
      if (released) return;
      released = true;
      entry.handlers.delete(id);
      closeIfIdle(family, entry);
    },
  };
}

function closeIfIdle(family: Family, entry: Shared): void {
  if (entry.handlers.size === 0 && entry.watchers.size === 0 && shared.get(family) === entry) {
    shared.delete(family);
    entry.socket.close();
  }
}

/**
 * Hands `onPacket` every ICMP packet the family's shared socket receives (IPv4 with its IP header), for
 * probes whose own packets are not echoes (mtr's UDP and TCP modes): they match the quoted original
 * themselves. Returns the release.
 */
export function watchIcmp(family: Family, onPacket: RawHandler): () => void {
  const entry = open(family);
  entry.watchers.add(onPacket);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    entry.watchers.delete(onPacket);
    closeIfIdle(family, entry);
  };
}
