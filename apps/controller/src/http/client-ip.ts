import { isIP } from "node:net";

/**
 * The caller's IP: the socket's peer, or — only when that peer is a configured proxy — the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy. The header is looked at only in that case.
 */
export function resolveClientIp(
  trustedProxies: readonly string[],
): (socketAddress: string | undefined, forwardedFor: string | undefined) => string {
  const trusted = new Set(trustedProxies.map(normalise));
  return (socketAddress, forwardedFor) => {
    const socketIp = normalise(socketAddress ?? "127.0.0.1");
    let ip = socketIp;
    if (trusted.size > 0 && trusted.has(socketIp)) {
      const chain = (forwardedFor ?? "")
        .split(",")
        .map((s) => normalise(s.trim()))
        .filter((s) => isIP(s) !== 0);
      for (let i = chain.length - 1; i >= 0; i--) {
        ip = chain[i]!;
        if (!trusted.has(ip)) break;
      }
    }
    return ip;
  };
}

function normalise(ip: string): string {
  return ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip.toLowerCase();
}
