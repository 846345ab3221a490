// What people paste where a host is meant, taken apart once for every client: the controller's host fields,
// the CLI and the dashboard import this file alone (`@vantage/protocol/pasted-host`). It imports nothing,
// so a browser bundle or the dependency-free CLI can take it without the protocol's schemas.

/** The port a URL of each scheme means when it names none. */
const schemePorts: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21, ssh: 22 };

export interface PastedHost {
  /** The host: a name or an address as typed (trimmed), an IPv6 address without its brackets. */
  host: string;
  /** The port the text names, if any (not range-checked: the caller judges it). */
  port?: number;
  /** A URL naming no port: its scheme's usual one. */
  schemePort?: number;
}

/**
 * A URL gives its host and port (or its scheme's usual port as `schemePort`); `host:port`, `[v6]:port`,
 * `[v6]`, `host/path`, a bare IPv6 address or a host give theirs. Anything else comes back as typed
 * (trimmed), for the caller's host check to judge.
 */
export function pastedHost(text: string): PastedHost {
  const v = text.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(v);
  if (scheme) {
    try {
      const url = new URL(v);
      const schemePort = schemePorts[scheme[1]!.toLowerCase()];
      if (url.hostname !== "")
        return {
          host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
          ...(url.port === "" ? {} : { port: Number(url.port) }),
          ...(schemePort === undefined ? {} : { schemePort }),
        };
    } catch {
      // Not a URL after all: taken as typed below.
    }
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?(?:[/?#].*)?$/.exec(v);
  if (bracketed) {
    // Brackets hold an IPv6 address only: around anything else they stay, for the host check to refuse.
    const host = bracketed[1]!.includes(":") ? bracketed[1]! : `[${bracketed[1]}]`;
    return { host, ...(bracketed[2] ? { port: Number(bracketed[2]) } : {}) };
  }
  if (v.split(":").length > 2) return { host: v }; // a bare IPv6 address
  const head = v.split(/[/?#]/, 1)[0] || v;
  const hostPort = /^([^:]+):(\d+)$/.exec(head);
  if (hostPort) return { host: hostPort[1]!, port: Number(hostPort[2]) };
  return { host: head };
}
