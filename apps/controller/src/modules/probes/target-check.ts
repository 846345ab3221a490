import { isIP } from "node:net";
import { isBlockedAddress, type ProbeJobSpec } from "@vantage/probes";

import { ApiError } from "../../http/errors.js";

/**
 * The controller's early check: a literal IP target (or DNS server) in a refused range is a 422 before any
 * node is asked. Host names pass here; the agent resolves them and checks the address it connects to.
 */
export function assertTargetAllowed(
  spec: ProbeJobSpec,
  allowPrivate: boolean,
  paths: { target: string; server: string },
): void {
  if (allowPrivate) return;
  for (const { field, host } of literalHosts(spec)) {
    const ip = literalAddress(host);
    if (ip !== undefined && isBlockedAddress(ip)) {
      const path = paths[field];
      const shown = ip === stripBrackets(host) ? ip : `${host} (${ip})`;
      throw new ApiError(
        "target_not_allowed",
        `${path}: ${shown} is in a private, loopback or reserved range`,
        [{ path, message: "address not allowed" }],
      );
    }
  }
}

/**
 * The address family of a literal IP target, or the family the request fixes (`ip_version`); undefined for
 * a name with none fixed (known only once a node resolves it).
 */
export function literalTargetFamily(spec: ProbeJobSpec): 4 | 6 | undefined {
  const target = literalHosts(spec).find((h) => h.field === "target");
  const ip = target && literalAddress(target.host);
  if (ip !== undefined) return isIP(ip) === 6 ? 6 : 4;
  return "ip_version" in spec.params ? spec.params.ip_version : undefined;
}

/**
 * The IP a host string denotes without DNS: an IP literal (brackets allowed), or an IPv4 number in one of
 * the other notations that resolvers (inet_aton) and URL parsers accept: `2130706433`, `0x7f.1`,
 * `0177.0.0.1`, `127.1`. The agent would resolve those to the same address and refuse it; catching them
 * here answers 422 before any node is asked or any quota is spent.
 */
export function literalAddress(host: string): string | undefined {
  const h = stripBrackets(host);
  if (isIP(h) !== 0) return h;
  if (!/^[0-9a-fx.]+$/i.test(h)) return undefined;
  try {
    const parsed = new URL(`http://${h}/`).hostname;
    return isIP(parsed) === 4 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function literalHosts(spec: ProbeJobSpec): { field: "target" | "server"; host: string }[] {
  switch (spec.type) {
    case "http":
      return [{ field: "target", host: new URL(spec.params.url).hostname }];
    case "dns":
      return spec.params.server ? [{ field: "server", host: serverHost(spec.params.server) }] : [];
    default:
      return [{ field: "target", host: spec.params.host }];
  }
}

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 address → the host part. */
export function serverHost(server: string): string {
  // A DoH URL: its host.
  if (/^https:\/\//i.test(server)) {
    try {
      return new URL(server).hostname.replace(/^\[(.*)\]$/, "$1");
    } catch {
      return server;
    }
  }
  if (server.startsWith("["))
    return server.slice(1, server.indexOf("]") > 0 ? server.indexOf("]") : undefined);
  if (isIP(server) === 6) return server;
  const colon = server.lastIndexOf(":");
  return colon > 0 ? server.slice(0, colon) : server;
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
