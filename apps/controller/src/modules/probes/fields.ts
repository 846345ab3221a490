import { isIP } from "node:net";
import { z } from "@hono/zod-openapi";
import { dnsRecordTypes, type ProbeJobSpec, probeJobSpecSchema } from "@vantage/probes";
import { nodeIdPattern } from "@vantage/protocol";
import { MAX_NODE_IDS } from "./select-nodes.js";
import { literalAddress } from "./target-check.js";

/** Request fields both forms share. Limits: host names 253 chars, URLs 2048, node lists 50 ids. */

const label = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
const hostnamePattern = new RegExp(`^${label}(?:\\.${label})*\\.?$`);

/** An IP address (IPv6 also in brackets) or a host name; brackets around anything but IPv6 are refused. */
export function isHostOrIp(value: string): boolean {
  if (value.startsWith("[") && value.endsWith("]")) return isIP(value.slice(1, -1)) === 6;
  return isIP(value) !== 0 || isHostName(value);
}

/**
 * A host name. A name whose last label is a number is not one: resolvers and URL parsers read it as an IPv4
 * address in another notation (`127.1`, `2130706433`, `0x7f.1`), so it counts only if it is a valid one
 * (`256.1.1.1` and `1.2.3.4.5` are neither names nor addresses: 400).
 */
function isHostName(v: string): boolean {
  if (v.length > 253 || !hostnamePattern.test(v)) return false;
  const last = v.replace(/\.$/, "").split(".").pop() ?? "";
  return !/^(?:\d+|0x[0-9a-f]*)$/i.test(last) || literalAddress(v) !== undefined;
}

/** C0 controls, DEL, or a UTF-16 half without its other half: nothing a URL may carry, nothing storable. */
function hasUnsafeChars(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (c >= 0xdc00 && c <= 0xdfff)) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = v.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    }
  }
  return false;
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
  .refine((v) => !hasUnsafeChars(v), "must not contain control characters or unpaired surrogates")
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

export const followRedirectsField = z
  .boolean()
  .openapi({ description: "Follow redirects (each hop checked by the target guard again); default false" });

export const maxRedirectsField = z
  .number()
  .int()
  .min(0)
  .max(10)
  .openapi({ description: "Most redirects to follow when following, 0–10, default 5" });

export const recordTypeField = z.enum(dnsRecordTypes).openapi({ description: "Default A" });

export const portField = z.number().int().min(1).max(65_535);

/** Fills the probe's own defaults and checks the result against the wire schema. */
export function buildSpec(type: ProbeJobSpec["type"], params: Record<string, unknown>): ProbeJobSpec {
  const clean = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  return probeJobSpecSchema.parse({ type, params: clean });
}
