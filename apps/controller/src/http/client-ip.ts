import { isIP } from "node:net";
import type { Context } from "hono";
import type { AppEnv } from "./context.js";

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
}

/**
 * The caller's IP: the socket's peer, or — only when that peer is a configured proxy — the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function resolveClientIp(trustedProxies: readonly string[]): (c: Context<AppEnv>) => string {
  const trusted = new Set(trustedProxies.map(normalise));
  return (c) => {
    const socketIp = normalise(
      (c.env as NodeBindings | undefined)?.incoming?.socket?.remoteAddress ?? "127.0.0.1",
    );
    let ip = socketIp;
    if (trusted.has(socketIp)) {
      const chain = (c.req.header("x-forwarded-for") ?? "")
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
