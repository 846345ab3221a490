import { isIP } from "node:net";
import { z } from "@hono/zod-openapi";
import { dnsRecordTypes, type ProbeJobSpec, probeJobSpecSchema } from "@vantage/probes";
import { nodeIdPattern } from "@vantage/protocol";
import { MAX_NODE_IDS } from "./select-nodes.js";

/** Request fields both forms share. Limits: host names 253 chars, URLs 2048, node lists 50 ids. */

const label = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
const hostnamePattern = new RegExp(`^${label}(?:\\.${label})*\\.?$`);

export function isHostOrIp(value: string): boolean {
  const v = value.startsWith("[") && value.endsWith("]") ? value.slice(1, -1) : value;
  return isIP(v) !== 0 || (v.length <= 253 && hostnamePattern.test(v));
}

export const hostField = z
  .string()
  .min(1)
  .max(253)
  .refine(isHostOrIp, "must be a host name or an IP address")
  .openapi({ example: "example.com" });

export const domainField = z
  .string()
  .min(1)
  .max(253)
  .refine((v) => hostnamePattern.test(v), "must be a domain name")
  .openapi({ example: "example.com" });

export const urlField = z
  .string()
  .min(1)
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
    } catch {
      return false;
    }
  }, "must be an http:// or https:// URL")
  .openapi({ example: "https://example.com/" });

/** `host`, `host:port`, an IPv6 address or `[v6]:port`. */
export const serverField = z
  .string()
  .min(1)
  .max(260)
  .refine((v) => {
    if (isIP(v) !== 0) return true;
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(v);
    if (!m) return false;
    const port = m[2] === undefined ? 53 : Number(m[2]);
    return isHostOrIp(m[1]!) && port >= 1 && port <= 65_535;
  }, "must be host, host:port, an IPv6 address or [v6]:port")
  .openapi({ description: "Custom DNS server; omitted = the node's own resolver", example: "1.1.1.1" });

export const nodeIdsField = z
  .array(z.string().regex(nodeIdPattern, "not a node id"))
  .max(MAX_NODE_IDS)
  .openapi({
    description: `Probe from these nodes (at most ${MAX_NODE_IDS}); empty or omitted = chosen automatically`,
    example: ["fra1", "sgp1"],
  });

export const methodField = z
  .enum(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
  .openapi({ description: "HTTP method (default GET)" });

export const recordTypeField = z.enum(dnsRecordTypes).openapi({ description: "Default A" });

export const portField = z.number().int().min(1).max(65_535);

/** Fills the probe's own defaults and checks the result against the wire schema. */
export function buildSpec(type: ProbeJobSpec["type"], params: Record<string, unknown>): ProbeJobSpec {
  const clean = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  return probeJobSpecSchema.parse({ type, params: clean });
}
