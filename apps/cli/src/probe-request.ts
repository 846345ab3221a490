import { pastedHost } from "@vantage/protocol/pasted-host";
import type { Form } from "./api-client.js";
import { CliError, UsageError } from "./errors.js";

export const PROBE_TYPES = ["ping", "http", "dns", "tcp", "traceroute", "mtr"] as const;
export type ProbeType = (typeof PROBE_TYPES)[number];

/** The flags of a probe command, form-neutral (timeouts in seconds). */
export interface ProbeOptions {
  target: string;
  nodes?: string[] | undefined;
  /** Location selectors (`--from` items that are no node ids): the API's `locations`. */
  locations?: Location[] | undefined;
  count?: number | undefined;
  port?: number | undefined;
  timeout?: number | undefined;
  recordType?: string | undefined;
  server?: string | undefined;
  method?: string | undefined;
  maxHops?: number | undefined;
  /** mtr: icmp (default), udp or tcp; rounds of probes. */
  mode?: string | undefined;
  rounds?: number | undefined;
  /** http: `any` (the API's default), `ipv4` or `ipv6`. */
  family?: string | undefined;
  /** ping: IP packet size in bytes, Don't Fragment, path MTU search. */
  size?: number | undefined;
  df?: boolean | undefined;
  pmtu?: boolean | undefined;
  /** dns: transport, DO and CD flags, NSID, iterative trace. */
  protocol?: string | undefined;
  dnssec?: boolean | undefined;
  cd?: boolean | undefined;
  nsid?: boolean | undefined;
  trace?: boolean | undefined;
  /** http: offer HTTP/2. */
  http2?: boolean | undefined;
}

function defined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/** The dns flags under the API's names (both forms use the same ones). */
function dnsOptions(o: ProbeOptions): Record<string, unknown> {
  return {
    protocol: o.protocol,
    dnssec: o.dnssec,
    checking_disabled: o.cd,
    nsid: o.nsid,
    trace: o.trace,
  };
}

/** The request body of `POST /v1/probe/{type}` in the deployment's form. */
export function probeBody(form: Form, type: ProbeType, o: ProbeOptions): Record<string, unknown> {
  const nodes = o.nodes?.length ? o.nodes : undefined;
  const ms = o.timeout === undefined ? undefined : o.timeout * 1000;
  let target = o.target;
  let port: number | undefined;
  if (type === "http" && !/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) target = `https://${target}`;
  if (type === "tcp") {
    const split = pastedHost(target);
    if (o.port !== undefined && split.port !== undefined && o.port !== split.port)
      throw new UsageError(`the target names port ${split.port} but --port says ${o.port}`, "tcp");
    port = o.port ?? split.port ?? split.schemePort;
    if (port === undefined) throw new UsageError("tcp needs a port: --port N or host:port", "tcp");
    target = split.host;
  } else if (type === "mtr") {
    // mtr: a pasted host:port gives its port to the udp and tcp modes (icmp has none).
    const split = pastedHost(target);
    if (o.mode === "udp" || o.mode === "tcp") port = o.port ?? split.port;
    else if (o.port !== undefined) throw new UsageError("--port needs --mode udp or tcp", "mtr");
    target = split.host;
  } else if (type !== "http") {
    // ping, dns, traceroute: a pasted URL or host:port stands for its host.
    target = pastedHost(target).host;
  }
  const family = type === "http" && o.family !== undefined ? o.family : undefined;
  if (form === "a") {
    const params = defined(
      {
        http: { method: o.method, timeout_ms: ms, ip_family: family, http2: o.http2 },
        ping: { count: o.count, timeout_ms: ms, size: o.size, dont_fragment: o.df, pmtu: o.pmtu },
        dns: { record_type: o.recordType, server: o.server, ...dnsOptions(o) },
        tcp: { port, timeout_ms: ms },
        traceroute: { max_hops: o.maxHops },
        mtr: { mode: o.mode, port, rounds: o.rounds, max_hops: o.maxHops },
      }[type],
    );
    return defined({
      target,
      node_ids: nodes,
      locations: o.locations,
      params: Object.keys(params).length ? params : undefined,
    });
  }
  const fields = {
    http: { url: target, method: o.method, timeout: o.timeout, ip_family: family, http2: o.http2 },
    ping: {
      host: target,
      count: o.count,
      timeout: o.timeout,
      size: o.size,
      dont_fragment: o.df,
      pmtu: o.pmtu,
    },
    dns: { domain: target, record_type: o.recordType, server: o.server, ...dnsOptions(o) },
    tcp: { host: target, port, timeout: o.timeout },
    traceroute: { host: target, max_hops: o.maxHops },
    mtr: { host: target, mode: o.mode, port, rounds: o.rounds, max_hops: o.maxHops },
  }[type];
  return defined({ ...fields, nodes, locations: o.locations });
}

/** One `locations` entry: a selector (one node) or a selector with its count. */
export type Location = string | { selector: string; count: number };

/**
 * `--from` as the request's node choice. Items that are all known node ids are sent as ids (`--limit` caps
 * them); otherwise every item is a location selector (docs/node-selection.md: `DE`, `germany+hetzner`,
 * `europe`, `AS`…), `selector:N` asking for N nodes, and the API picks (an unknown selector is its 400).
 * `--limit` with one selector without a count is its count.
 */
export function fromChoice(
  nodes: NodeInfo[],
  from: string[],
  limit: number | undefined,
): { nodes?: string[]; locations?: Location[] } {
  const ids = new Set(nodes.map((n) => n.id));
  if (from.every((t) => ids.has(t))) {
    const unique = [...new Set(from)];
    return { nodes: limit === undefined ? unique : unique.slice(0, limit) };
  }
  const locations: Location[] = from.map((t) => {
    const m = /^(.+):(\d{1,2})$/.exec(t);
    return m ? { selector: m[1]!, count: Number(m[2]) } : t;
  });
  const only = locations[0];
  if (limit !== undefined && locations.length === 1 && typeof only === "string")
    return { locations: [{ selector: only, count: limit }] };
  return { locations };
}

/** A node of `GET /v1/nodes`. */
export interface NodeInfo {
  id: string;
  name: string;
  country: string | null;
  region?: string | null;
  provider?: string | null;
  status: string;
  version?: string | null;
  capabilities?: string[];
}

const COUNTRY = /^[A-Za-z]{2}$/;

/** Whether `--from`/`--limit` need the node list to become node ids. */
export function needsNodeList(from: string[] | undefined, limit: number | undefined): boolean {
  return from ? from.some((t) => COUNTRY.test(t)) : limit !== undefined;
}

/** Takes one node of each country in turn, so a few nodes cover as many countries as they can. */
function spread(groups: NodeInfo[][], limit: number): string[] {
  const out: string[] = [];
  for (let round = 0; out.length < limit; round++) {
    const taken = groups.map((g) => g[round]).filter((n): n is NodeInfo => n !== undefined);
    if (!taken.length) break;
    for (const n of taken) if (out.length < limit) out.push(n.id);
  }
  return out;
}

function byCountry(nodes: NodeInfo[]): NodeInfo[][] {
  const groups = new Map<string, NodeInfo[]>();
  for (const n of [...nodes].sort((a, b) => a.id.localeCompare(b.id))) {
    const key = n.country ?? "";
    groups.set(key, [...(groups.get(key) ?? []), n]);
  }
  return [...groups.values()];
}

/**
 * The node ids to send, or undefined for the API's automatic choice. `--from` items are node ids, or
 * 2-letter country codes (a known node id wins) that stand for that country's online nodes; `--limit`
 * caps the total. Without `--from`, `--limit N` spreads N online nodes able to run the type over countries.
 */
export function selectNodes(
  type: ProbeType,
  nodes: NodeInfo[],
  from: string[] | undefined,
  limit: number | undefined,
): string[] | undefined {
  const online = nodes.filter(
    (n) => n.status === "online" && (!n.capabilities?.length || n.capabilities.includes(type)),
  );
  if (!from) {
    if (limit === undefined || !online.length) return undefined;
    return spread(byCountry(online), limit);
  }
  const ids = new Set(nodes.map((n) => n.id));
  const named: string[] = [];
  const countries: NodeInfo[][] = [];
  for (const token of from) {
    if (ids.has(token) || !COUNTRY.test(token)) {
      named.push(token);
      continue;
    }
    const code = token.toUpperCase();
    const group = online.filter((n) => n.country === code).sort((a, b) => a.id.localeCompare(b.id));
    if (!group.length) throw new CliError(`no online node in country ${code} (see \`vantage nodes\`)`);
    countries.push(group);
  }
  const unique = [...new Set(named)];
  const max = limit ?? Number.POSITIVE_INFINITY;
  const picked = unique.slice(0, max);
  for (const id of spread(countries, Number.isFinite(max) ? max : 1000)) {
    if (picked.length >= max) break;
    if (!picked.includes(id)) picked.push(id);
  }
  return picked;
}
