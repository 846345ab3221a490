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
    const ip = stripBrackets(host);
    if (isIP(ip) !== 0 && isBlockedAddress(ip)) {
      const path = paths[field];
      throw new ApiError("target_not_allowed", `${path}: ${ip} is in a private, loopback or reserved range`, [
        { path, message: "address not allowed" },
      ]);
    }
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
  if (server.startsWith("["))
    return server.slice(1, server.indexOf("]") > 0 ? server.indexOf("]") : undefined);
  if (isIP(server) === 6) return server;
  const colon = server.lastIndexOf(":");
  return colon > 0 ? server.slice(0, colon) : server;
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
