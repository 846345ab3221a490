import { z } from "@hono/zod-openapi";
import { answerIp, type IpDataSource } from "@vantage/lookups";

/**
 * Networks per hop: the controller annotates each traceroute and mtr hop with the shipped IP data (agents
 * send addresses only and stay light), and the answer with its AS path. Done once, when a node's result
 * arrives, so the stored task, the live stream and every later read carry the same annotation.
 */

/** The IP data now answering, or undefined when it cannot be loaded (hops then go unannotated). */
export type HopNetworks = () => Promise<IpDataSource | undefined>;

export const hopNetworkFields = {
  asn: z.number().int().nullable().optional().openapi({
    description: "AS number of the hop's address (the IP data's), null when unknown or reserved",
    example: 13335,
  }),
  network: z.string().nullable().optional().openapi({
    description: "The AS organisation's name, null when unknown or reserved",
    example: "Cloudflare, Inc.",
  }),
  country: z.string().nullable().optional().openapi({
    description: "ISO 3166-1 alpha-2 country of the address, null when unknown or reserved",
    example: "DE",
  }),
  reserved: z.boolean().optional().openapi({
    description:
      "True for private, loopback, link-local, CGNAT, documentation and other special-purpose addresses",
  }),
  range: z.string().nullable().optional().openapi({
    description: "The special range's category when reserved (`private`, `cgnat`, `documentation`, …)",
  }),
};

export const asPathField = z
  .array(z.number().int())
  .optional()
  .openapi({
    description:
      "The networks the path crosses, in order: each hop's AS number once per run of hops in it (unknown and " +
      "reserved hops skipped)",
    example: [64500, 13335],
  });

type Hop = Record<string, unknown> & { ip?: unknown };

/** A node's result as far as hops go (dispatch.ts's NodeResult: no import, which would be a cycle). */
interface WithDetail {
  detail: Record<string, unknown> | null;
}

/** The result with every hop annotated and `as_path` set; other probe types come back as they were. */
export function annotateHops<R extends WithDetail>(result: R, data: IpDataSource): R {
  const hops = result.detail?.hops;
  if (!Array.isArray(hops)) return result;
  const path: number[] = [];
  const annotated = hops.map((raw: unknown) => {
    const hop = raw as Hop;
    if (typeof hop.ip !== "string") return hop;
    let answer: ReturnType<typeof answerIp>;
    try {
      answer = answerIp(hop.ip, data);
    } catch {
      return hop; // not an address: left as the agent sent it
    }
    const asn = answer.asn === null ? null : Number(answer.asn.replace(/^AS/, ""));
    if (asn !== null && path[path.length - 1] !== asn) path.push(asn);
    return {
      ...hop,
      asn,
      network: answer.isp,
      country: answer.country,
      reserved: answer.reserved,
      range: answer.range,
    };
  });
  return { ...result, detail: { ...result.detail, hops: annotated, as_path: path } };
}

/** `annotateHops` with the data loaded on first use; without data (it failed to load) the result as is. */
export async function withHopNetworks<R extends WithDetail>(
  result: R,
  source: HopNetworks | undefined,
): Promise<R> {
  if (!source || !Array.isArray(result.detail?.hops)) return result;
  const data = await source().catch(() => undefined);
  return data ? annotateHops(result, data) : result;
}
