import { z } from "@hono/zod-openapi";
import {
  dnsParamsConflicts,
  dnsProtocols,
  dnsRecordTypes,
  MTR_MAX_ROUNDS,
  mtrModes,
  PING_MAX_SIZE,
  PING_MIN_SIZE,
  PMTU_MAX_PROBES,
  type ProbeJobSpec,
  probeJobSpecSchema,
  TRACE_BUDGET_FACTOR,
  TRACE_MAX_DEPTH,
} from "@vantage/probes";
import { nodeIdPattern } from "@vantage/protocol";
import { MAX_NODE_IDS } from "./select-nodes.js";

/** Request fields both forms share. Limits: host names 253 chars, URLs 2048, node lists 50 ids. */

/** The DNS options both forms take (a documented extension). */
export const dnsOptionFields = {
  protocol: z.enum(dnsProtocols).openapi({
    description:
      "`udp` (default; TCP when the answer is truncated), `tcp`, `tls` (DNS over TLS, RFC 7858, port 853 " +
      "unless `server` names one) or `https` (DNS over HTTPS, RFC 8484: `server` is the URL). The result's " +
      "`tls` describes the server's certificate; trust is reported, not enforced. Needs agents of this " +
      "version: older ones ignore it and ask over UDP.",
  }),
  doh_method: z
    .enum(["POST", "GET"])
    .openapi({ description: "With protocol https: POST (default) or GET (`?dns=` base64url)." }),
  dnssec: z.boolean().openapi({
    description: "Set the EDNS DO bit (`dig +dnssec`): DNSSEC records (RRSIG…) are asked for; default false.",
  }),
  checking_disabled: z.boolean().openapi({
    description:
      "Set the CD flag (`dig +cdflag`): the resolver should answer without validating; default false.",
  }),
  nsid: z.boolean().openapi({
    description:
      "Ask for the server's NSID (RFC 5001, `dig +nsid`): the result's `nsid`, null if it sent none.",
  }),
  trace: z.boolean().openapi({
    description:
      "Resolve iteratively from the root servers as `dig +trace`: the result's `trace` lists each server " +
      `asked. Not with \`server\`, nor protocol tls/https. Every server a referral names passes the target ` +
      `guard; NS names without glue are looked up from the roots too; at most ${TRACE_MAX_DEPTH} delegations, the whole ` +
      `trace within ${TRACE_BUDGET_FACTOR} × the timeout. The roots are the IANA ones unless the node's ` +
      "operator sets VANTAGE_DNS_ROOTS.",
  }),
};

/** The rules between the DNS options, as the probe has them, at the fields' own paths. */
export function checkDnsOptions(
  v: {
    server?: string | undefined;
    protocol?: string | undefined;
    doh_method?: string | undefined;
    trace?: boolean | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  for (const { field, message } of dnsParamsConflicts(v))
    ctx.addIssue({ code: "custom", path: [field], message });
}

export const nodeIdsField = z
  .array(z.string().regex(nodeIdPattern, "not a node id"))
  .max(MAX_NODE_IDS)
  .openapi({
    description: `Probe from these nodes (at most ${MAX_NODE_IDS}); empty or omitted = chosen automatically`,
    example: ["fra1", "sgp1"],
  });

export const ipFamilyField = z.enum(["any", "ipv4", "ipv6"]).openapi({
  description:
    "Address family the node connects over: `ipv4`, `ipv6`, or `any` (default): the name's first address, " +
    "and when that connection is refused or unreachable the first address of the other family, as curl " +
    "does (e.g. a host whose IPv6 is broken is still measured over IPv4). `resolved_ip` says which was used. " +
    "Older agents take `ipv4`/`ipv6` too; only the fallback needs agents of this version.",
});

/** The API's family name → the probe's `ip_version` (absent = any). */
export function ipVersionOf(family: "any" | "ipv4" | "ipv6" | undefined): 4 | 6 | undefined {
  return family === "ipv4" ? 4 : family === "ipv6" ? 6 : undefined;
}

/** Older agents drop params they do not know, so the probe runs without them. */
export const agentsNote = " Needs agents of this version: older ones ignore it.";

/** mtr's options, the same fields in both forms (Form A under `params`, Form B flat). */
export const mtrOptionFields = {
  mode: z.enum(mtrModes).optional().openapi({
    description:
      "How probes are sent: `icmp` echo (default, as `mtr`), `udp` (`mtr -u`) or `tcp` SYN (`mtr -T`)",
  }),
  port: z.number().int().min(1).max(65_535).optional().openapi({
    description: "Destination port for `udp` (default 33434) and `tcp` (default 80); not with `icmp`",
  }),
  rounds: z
    .number()
    .int()
    .min(1)
    .max(MTR_MAX_ROUNDS)
    .optional()
    .openapi({ description: `Rounds of probes, one per hop each (mtr -c), 1–${MTR_MAX_ROUNDS}, default 10` }),
  max_hops: z.number().int().min(1).max(64).optional().openapi({ description: "1–64, default 30" }),
  interval_ms: z
    .number()
    .int()
    .min(100)
    .max(5000)
    .optional()
    .openapi({ description: "Milliseconds between rounds (mtr -i), 100–5000, default 1000" }),
  timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(5000)
    .optional()
    .openapi({ description: "Wait for each probe's answer, 100–5000 ms, default 1000, at most interval_ms" }),
};

/** `port` means nothing to ICMP. */
export function checkMtrOptions(
  v: { mode?: string | undefined; port?: number | undefined },
  ctx: z.RefinementCtx,
) {
  if (v.port !== undefined && (v.mode ?? "icmp") === "icmp")
    ctx.addIssue({ code: "custom", path: ["port"], message: "only with mode udp or tcp" });
}

export const pingSizeField = z
  .number()
  .int()
  .min(PING_MIN_SIZE)
  .max(PING_MAX_SIZE)
  .openapi({
    description:
      `Each echo's IP packet in bytes, headers included (${PING_MIN_SIZE}–${PING_MAX_SIZE}; \`ping -s\` is size − 28 ` +
      "on IPv4, − 48 on IPv6, where packets are at least 48 bytes). Default 84 / 104 (56 data bytes). With " +
      "`pmtu`, the largest size the search tries (default 1500)." +
      agentsNote,
    example: 1500,
  });

export const dontFragmentField = z.boolean().openapi({
  description:
    "true: DF set and no fragmenting on the node, so a packet over the path MTU fails with `packet_too_big`; " +
    "false: DF clear, IPv4 routers may fragment (IPv6 routers never do). Default: the node's system setting." +
    agentsNote,
});

export const pmtuField = z.boolean().openapi({
  description:
    "After the echoes, find the path MTU: the largest packet (bytes, headers included; up to `size`, default " +
    "1500) that reaches the target and gets its reply with DF set, as `pmtu` in each node's result (null if " +
    `none did). Binary search, at most ${PMTU_MAX_PROBES} echoes, each waiting its timeout at worst (a lost ` +
    'echo counts as too big); a router\'s "fragmentation needed" names its MTU, which shortens it.' +
    agentsNote,
});

export const recordTypeField = z.enum(dnsRecordTypes).openapi({ description: "Default A" });

export const portField = z.number().int().min(1).max(65_535);

/** Fills the probe's own defaults and checks the result against the wire schema. */
export function buildSpec(type: ProbeJobSpec["type"], params: Record<string, unknown>): ProbeJobSpec {
  const clean = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  return probeJobSpecSchema.parse({ type, params: clean });
}
