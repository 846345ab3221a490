import type { ProbeErrorCode } from "./probe-results.js";

/*
 * What a failed socket call means, in words a person reading a probe result understands: "connect
 * ENETUNREACH 198.51.100.53:53" becomes "no route to the network of 198.51.100.53 (connect ENETUNREACH)".
 * The errno stays in the message (people search for it); the sentence says whose problem it is: the
 * target's network, the target itself, or the node that ran the probe.
 */

/**
 * raw-socket throws plain Errors carrying strerror(3)'s text only, glibc's wording: the errno each stands
 * for, so ICMP failures read like the others.
 */
const strerrorNames: Record<string, string> = {
  "Operation not permitted": "EPERM",
  "Permission denied": "EACCES",
  "Network is unreachable": "ENETUNREACH",
  "No route to host": "EHOSTUNREACH",
  "Network is down": "ENETDOWN",
  "Host is down": "EHOSTDOWN",
  "Cannot assign requested address": "EADDRNOTAVAIL",
  "Address family not supported by protocol": "EAFNOSUPPORT",
  "Too many open files": "EMFILE",
  "Too many open files in system": "ENFILE",
  "No buffer space available": "ENOBUFS",
  "Cannot allocate memory": "ENOMEM",
  "Connection refused": "ECONNREFUSED",
  "Connection timed out": "ETIMEDOUT",
  "Message too long": "EMSGSIZE",
};

/** The errno name of a Node system error (`code`), or of a raw-socket error (its strerror text). */
export function errnoName(error: unknown): string | null {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === "string") return e.code;
  if (typeof e?.message === "string") return strerrorNames[e.message] ?? null;
  return null;
}

export interface NetErrorContext {
  /** The address the call was aimed at; Node's errors name it themselves (`address`), raw-socket's do not. */
  target?: string | undefined;
  /** The call that failed, when the error does not say (`socket` for opening a raw socket, `send`). */
  syscall?: string | undefined;
}

type Sentence = (target: string, syscall: string) => readonly [ProbeErrorCode, string];

const ipv6 = (target: string) => target.includes(":");

/**
 * The failures whose errno alone says what happened. ECONNREFUSED and ETIMEDOUT are left to Node's own
 * message ("connect ECONNREFUSED 127.0.0.1:9"): it is already plain, and callers read it as it is.
 */
const sentences: Record<string, Sentence> = {
  ENETUNREACH: (t) => ["network_unreachable", `no route to the network of ${t}`],
  ENETDOWN: (t) => ["network_unreachable", `the node's network towards ${t} is down`],
  EHOSTUNREACH: (t) => ["host_unreachable", `no route to host ${t}: nothing answers for it on its network`],
  EHOSTDOWN: (t) => ["host_unreachable", `${t} is down`],
  // A socket may send to a broadcast address only with SO_BROADCAST, which no probe sets: the kernel
  // answers EACCES (127.255.255.255, 192.0.2.255 in a /24). Opening a raw socket is the other case.
  EACCES: (t, syscall) =>
    syscall === "socket"
      ? ["icmp_unavailable", "the node may not open raw sockets (no CAP_NET_RAW)"]
      : ["invalid_target", `${t} is a broadcast address: the node may not send to it`],
  // Opening a raw socket without CAP_NET_RAW; a send or connect refused by the node's own firewall.
  EPERM: (t, syscall) =>
    syscall === "socket"
      ? ["icmp_unavailable", "the node may not open raw sockets (no CAP_NET_RAW)"]
      : ["probe_error", `the node's firewall does not let traffic to ${t} out`],
  // No source address for the target: IPv6 disabled on the node (disable_ipv6=1) leaves none for any
  // IPv6 target, ::1 included. For IPv4 the other cause is a node out of local ports.
  EADDRNOTAVAIL: (t) =>
    ipv6(t)
      ? ["ipv6_unavailable", `the node has no IPv6 address to reach ${t} from: IPv6 is disabled on it`]
      : ["probe_error", `the node has no address to reach ${t} from, or no free local port`],
  EAFNOSUPPORT: (t) =>
    ipv6(t) || t === "the target"
      ? ["ipv6_unavailable", "the node does not support IPv6"]
      : ["probe_error", `the node does not support the address family of ${t}`],
  // A send with DF (path MTU discovery "do") larger than the path MTU the node knows for the target.
  EMSGSIZE: (t) => ["packet_too_big", `the packet is larger than the path MTU towards ${t} the node knows`],
  EMFILE: () => ["resources_exhausted", "the node is out of file descriptors"],
  ENFILE: () => ["resources_exhausted", "the node's system is out of file descriptors"],
  ENOBUFS: () => ["resources_exhausted", "the node is out of network buffer space"],
  ENOMEM: () => ["resources_exhausted", "the node is out of memory"],
};

/**
 * A probe error code and a sentence for a socket error whose errno says enough on its own; null for the
 * rest (the caller keeps its own mapping and Node's message).
 */
export function describeNetError(
  error: unknown,
  context: NetErrorContext = {},
): { code: ProbeErrorCode; message: string } | null {
  const errno = errnoName(error);
  const sentence = errno === null ? undefined : sentences[errno];
  if (!sentence) return null;
  const e = error as { address?: unknown; syscall?: unknown };
  const target = context.target ?? (typeof e.address === "string" ? e.address : "the target");
  const syscall = typeof e.syscall === "string" ? e.syscall : (context.syscall ?? "");
  const [code, words] = sentence(target, syscall);
  return { code, message: `${words} (${syscall ? `${syscall} ` : ""}${errno})` };
}
