import { isIP } from "node:net";
import type * as dnsPacket from "dns-packet";
import type { RecordType } from "dns-packet";
import { elapsedMs, now } from "./clock.js";
import { fqdn } from "./dns-format.js";
import { type DnsQueryResult, queryDns } from "./dns-query.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { type DnsParams, TRACE_BUDGET_FACTOR, TRACE_MAX_DEPTH } from "./probe-params.js";
import type { DnsResult } from "./probe-results.js";
import { assertAllowed } from "./target-guard.js";
import type { ProbeContext } from "./types.js";

/*
 * `dig +trace`: the question asked without recursion of a root server, then of each server the referrals
 * name, down to the zone that answers. Only the configured roots are trusted as given (the operator's
 * choice, like the node's resolver); every address a referral hands out passes the target guard, or a
 * zone could point the node at its own private network.
 */

/** The IANA root servers (a–m), IPv4 then IPv6: the default when no roots are configured. */
export const ROOT_SERVERS: readonly string[] = [
  "198.41.0.4",
  "170.247.170.2",
  "192.33.4.12",
  "199.7.91.13",
  "192.203.230.10",
  "192.5.5.241",
  "192.112.36.4",
  "198.97.190.53",
  "192.36.148.17",
  "192.58.128.30",
  "193.0.14.129",
  "199.7.83.42",
  "202.12.27.33",
  "2001:503:ba3e::2:30",
  "2001:500:200::b",
  "2001:500:2::c",
];

/** Servers of one zone asked before giving up on it. */
const SERVERS_PER_ZONE = 3;

/** The roots: the context's (tests, a lab), else `VANTAGE_DNS_ROOTS` (comma-separated addresses), else IANA's. */
export function traceRoots(ctx: ProbeContext): readonly string[] {
  if (ctx.dnsRoots && ctx.dnsRoots.length > 0) return ctx.dnsRoots;
  const env = (process.env.VANTAGE_DNS_ROOTS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => isIP(s) !== 0);
  return env.length > 0 ? env : ROOT_SERVERS;
}

type Step = NonNullable<DnsResult["trace"]>[number];
interface Server {
  address: string;
  name: string | null;
}

const lower = (name: string) => fqdn(name).toLowerCase();
const inZone = (name: string, zone: string) => zone === "." || name === zone || name.endsWith(`.${zone}`);

/** IPv4 servers first: a node without IPv6 still gets through, one with it loses nothing. */
const byFamily = (servers: Server[]) => [...servers].sort((a, b) => isIP(a.address) - isIP(b.address));

/** How deep lookups of glueless NS names may nest (each is a walk from the roots of its own). */
const MAX_NESTING = 2;

export async function traceDns(params: DnsParams, ctx: ProbeContext): Promise<DnsResult> {
  const started = now();
  const deadline = Date.now() + TRACE_BUDGET_FACTOR * params.timeout_ms;
  const steps: Step[] = [];
  try {
    const last = await walk(lower(params.domain), params.record_type, params, ctx, deadline, steps, 0);
    return {
      ...summary(steps, last, started),
      ...(params.nsid ? { nsid: last.result.nsid ?? null } : {}),
    };
  } catch (error) {
    const failure = toProbeFailure(error);
    throw new ProbeFailure(failure.code, failure.message, summary(steps, null, started));
  }
}

type Answered = { server: Server; result: DnsQueryResult };

/**
 * From the roots down to the server that answers `qname`, each server asked recorded in `steps`. A
 * delegation without glue has its NS names looked up the same way (from the roots, `nest` deeper), as a
 * resolver does; their steps are not part of the trace.
 */
async function walk(
  qname: string,
  type: RecordType,
  params: DnsParams,
  ctx: ProbeContext,
  deadline: number,
  steps: Step[],
  nest: number,
): Promise<Answered> {
  let zone = ".";
  let servers: Server[] = traceRoots(ctx).map((address) => ({ address, name: null }));
  let trustedServers = true;
  for (let depth = 0; depth < TRACE_MAX_DEPTH; depth++) {
    let answered: Answered | null = null;
    let lastError: ProbeFailure | null = null;
    for (const server of byFamily(servers).slice(0, SERVERS_PER_ZONE)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || ctx.signal?.aborted) break;
      const t0 = now();
      try {
        if (!trustedServers) assertAllowed(server.address, ctx.allowPrivate, server.name ?? undefined);
        const result = await queryDns({
          name: qname,
          type,
          address: server.address,
          family: isIP(server.address) === 6 ? 6 : 4,
          port: 53,
          timeoutMs: Math.max(1, Math.min(params.timeout_ms, remaining)),
          signal: ctx.signal,
          recursionDesired: false,
          dnssecOk: params.dnssec,
          checkingDisabled: params.checking_disabled,
          nsid: params.nsid && nest === 0,
          transport: params.protocol === "tcp" ? "tcp" : "udp",
        });
        answered = { server, result };
        break;
      } catch (error) {
        lastError = toProbeFailure(error);
        // A server refused by the guard ends the trace: asking its siblings would refuse them too.
        if (lastError.code === "target_not_allowed") throw lastError;
        steps.push({
          zone,
          server: server.address,
          server_name: server.name,
          rcode: "",
          query_time_ms: elapsedMs(t0),
          referral: [],
          answers: [],
          error: `${lastError.code}: ${lastError.message}`,
        });
      }
    }
    if (!answered) {
      const why = lastError ? lastError.message : "the trace ran out of time";
      throw new ProbeFailure(lastError?.code ?? "timeout", `no server of zone ${zone} answered: ${why}`);
    }
    const { server, result } = answered;
    const ns = referral(result.response, zone, qname);
    steps.push({
      zone,
      server: server.address,
      server_name: server.name,
      rcode: result.rcode,
      query_time_ms: result.query_time_ms,
      referral: ns?.names ?? [],
      answers: result.answers,
    });
    if (!ns || result.answers.length > 0 || result.rcode !== "NOERROR") return answered;
    let next = ns.glue.filter((g) => ns.names.includes(g.name ?? ""));
    if (next.length === 0 && nest < MAX_NESTING) next = await glueless(ns.names, params, ctx, deadline, nest);
    if (next.length === 0)
      throw new ProbeFailure(
        "probe_error",
        `${server.address} delegated ${ns.zone} to ${ns.names.join(", ")}, and no address of theirs was found`,
      );
    zone = ns.zone;
    servers = next;
    trustedServers = false;
  }
  throw new ProbeFailure("probe_error", `more than ${TRACE_MAX_DEPTH} delegations`);
}

/** The IPv4 addresses of the first of `names` (at most two tried) that resolves from the roots. */
async function glueless(
  names: string[],
  params: DnsParams,
  ctx: ProbeContext,
  deadline: number,
  nest: number,
): Promise<Server[]> {
  for (const name of names.slice(0, 2)) {
    try {
      const found = await walk(name, "A", params, ctx, deadline, [], nest + 1);
      const addresses = found.result.answers.filter((a) => a.type === "A").map((a) => a.value);
      if (addresses.length > 0) return addresses.map((address) => ({ address, name }));
    } catch (error) {
      // The guard's refusal is the answer; anything else: the next name.
      if (error instanceof ProbeFailure && error.code === "target_not_allowed") throw error;
    }
  }
  return [];
}

/**
 * The delegation in an answer's authority section: NS records for a zone strictly below the current one
 * that still contains the name asked (a referral sideways or upwards would loop), with their glue.
 */
function referral(
  response: dnsPacket.DecodedPacket,
  zone: string,
  qname: string,
): { zone: string; names: string[]; glue: Server[] } | null {
  const records = (response.authorities ?? []).filter((r) => r.type === "NS");
  if (records.length === 0) return null;
  const child = lower(records[0]!.name);
  if (child === zone || !inZone(child, zone) || !inZone(qname, child)) return null;
  const names = records
    .filter((r) => lower(r.name) === child)
    .map((r) => lower(String((r as { data: unknown }).data)));
  const glue: Server[] = [];
  for (const r of response.additionals ?? []) {
    if (r.type !== "A" && r.type !== "AAAA") continue;
    glue.push({ address: String((r as { data: unknown }).data), name: lower(r.name) });
  }
  return { zone: child, names, glue };
}

function summary(
  steps: Step[],
  last: { server: Server; result: DnsQueryResult } | null,
  started: bigint,
): DnsResult {
  return {
    resolver: last?.server.address ?? steps.at(-1)?.server ?? "",
    resolver_port: 53,
    protocol: last?.result.protocol === "tcp" ? "tcp" : "udp",
    rcode: last?.result.rcode ?? "",
    truncated: last?.result.truncated ?? false,
    query_time_ms: elapsedMs(started),
    answers: last?.result.answers ?? [],
    flags: last?.result.flags ?? [],
    trace: steps,
  };
}
