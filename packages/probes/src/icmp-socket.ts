import { randomInt } from "node:crypto";
import raw, { type Socket as RawSocket } from "raw-socket";
import { now } from "./clock.js";
import { buildEcho, type Family, type IcmpMessage, parseIcmp } from "./icmp-packet.js";
import { ProbeFailure } from "./probe-failure.js";

export type ReceivedIcmp = IcmpMessage & { source: string; receivedAt: bigint };
type Handler = (message: ReceivedIcmp) => void;

interface Shared {
  socket: RawSocket;
  handlers: Map<number, Handler>;
  defaultHops: number;
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
    throw new ProbeFailure(
      "icmp_unavailable",
      `cannot open a raw ICMP socket (needs root or CAP_NET_RAW): ${(error as Error).message}`,
    );
  }
  // A burst of replies (many concurrent pings, a traceroute window) must not overflow the kernel queue.
  socket.setOption(raw.SocketLevel.SOL_SOCKET, raw.SocketOption.SO_RCVBUF, 1 << 20);
  const [level, option] = levels()[family];
  const value = Buffer.alloc(4);
  socket.getOption(level, option, value, 4);
  const read = value.readInt32LE(0);
  const entry: Shared = { socket, handlers: new Map(), defaultHops: read > 0 ? read : 64 };
  socket.on("message", (buffer, source) => {
    const receivedAt = now();
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

export interface IcmpLease {
  readonly id: number;
  readonly family: Family;
  /** Sends echo `seq` with the given hop limit (default: the system's); resolves with the send time. */
  send(address: string, seq: number, hopLimit?: number): Promise<bigint>;
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
    send(address, seq, hopLimit) {
      return new Promise((resolve, reject) => {
        const packet = buildEcho(family, id, seq);
        let sentAt = 0n;
        // Set right before sendto, inside raw-socket's send queue: the option is per socket, and other
        // runs share this socket with their own hop limits.
        const before = () => {
          entry.socket.setOption(level, option, hopLimit ?? entry.defaultHops);
          sentAt = now();
        };
        entry.socket.send(packet, 0, packet.length, address, before, (error) => {
          if (error) reject(error);
          else resolve(sentAt);
        });
      });
    },
    release() {
      if (released) return;
      released = true;
      entry.handlers.delete(id);
      if (entry.handlers.size === 0 && shared.get(family) === entry) {
        shared.delete(family);
        entry.socket.close();
      }
    },
  };
}
