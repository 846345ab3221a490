import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { ProbeFailure } from "./probe-failure.js";

export interface ServerAddress {
  host: string;
  port: number;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address → host and port (53 by default). */
export function parseServer(server: string, defaultPort = 53): ServerAddress {
  const s = server.trim();
  let host = s;
  let portText: string | undefined;
  if (s.startsWith("[")) {
    const close = s.indexOf("]");
    if (close < 0) throw new ProbeFailure("invalid_target", `unbalanced brackets in server ${server}`);
    host = s.slice(1, close);
    const rest = s.slice(close + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) throw new ProbeFailure("invalid_target", `bad server ${server}`);
      portText = rest.slice(1);
    }
  } else if (isIP(s) !== 6) {
    const colon = s.lastIndexOf(":");
    if (colon >= 0) {
      host = s.slice(0, colon);
      portText = s.slice(colon + 1);
    }
  }
  const port = portText === undefined ? defaultPort : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65_535 || portText === "") {
    throw new ProbeFailure("invalid_target", `bad port in server ${server}`);
  }
  if (host === "") throw new ProbeFailure("invalid_target", `empty host in server ${server}`);
  return { host, port };
}

/** The first `nameserver` of /etc/resolv.conf; glibc's own fallback (127.0.0.1) when there is none. */
export async function systemResolver(path = "/etc/resolv.conf"): Promise<ServerAddress> {
  let text = "";
  try {
    text = await readFile(path, "utf8");
  } catch {
    // No resolv.conf: glibc then queries the local host, and so do we.
  }
  for (const line of text.split("\n")) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    if (match?.[1]) return { host: match[1].split("%")[0] ?? match[1], port: 53 };
  }
  return { host: "127.0.0.1", port: 53 };
}
