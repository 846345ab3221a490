/** The port a URL of each scheme means when it names none. */
const schemePorts: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21, ssh: 22 };

/**
 * What people paste where a host is meant, taken apart: a URL gives its host and port (or its scheme's
 * usual one as `schemePort`); `host:port`, `[v6]:port`, `[v6]`, `host/path`, a bare IPv6 address or a
 * host give theirs. IPv6 hosts come back without brackets; anything else as typed (trimmed), for the API
 * to judge.
 */
export function pastedHost(text: string): { host: string; port?: number; schemePort?: number } {
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
  if (bracketed) return { host: bracketed[1]!, ...(bracketed[2] ? { port: Number(bracketed[2]) } : {}) };
  if (v.split(":").length > 2) return { host: v }; // a bare IPv6 address
  const head = v.split(/[/?#]/, 1)[0] || v;
  const hostPort = /^([^:]+):(\d+)$/.exec(head);
  if (hostPort) return { host: hostPort[1]!, port: Number(hostPort[2]) };
  return { host: head };
}
