import {
  type DnsQuery,
  type DnsQueryResult,
  ProbeFailure,
  parseServer,
  queryDns,
  systemResolver,
} from "@vantage/probes/dns-query";
import { type ResolveOptions, resolveAndCheck } from "@vantage/probes/target-guard";

/*
 * The DNS resolver the lookups ask (the DNS records lookup, the reputation lookup's DNSBL and reverse-DNS
 * checks), through the dns probe's wire client (@vantage/probes/dns-query): answers are read by rcode
 * (NXDOMAIN is not SERVFAIL), with TTLs for every type, rather than through node:dns. This file knows no
 * lookup context (types.ts imports the lookups, which import this): callers pass the plain options.
 */

/**
 * The time a query may use: it ends by `endsAt` (performance.now() time) or when `signal` aborts. A
 * Deadline (net/deadline.ts) is one; a step that must end earlier makes its own.
 */
export interface Budget {
  signal: AbortSignal;
  endsAt: number;
}

export const remainingMs = (budget: Budget): number => Math.max(0, budget.endsAt - performance.now());

export interface Resolver {
  address: string;
  family: 4 | 6;
  port: number;
  /** For messages: `address:port`, `[v6]:port`. */
  label: string;
}

export interface PickResolverOptions {
  /** Lifts the target guard for a named server (the context's switch, or an operator's own resolver). */
  allowPrivate: boolean;
  /** Resolves a server given by name; getaddrinfo when omitted. */
  lookup?: ResolveOptions["lookup"] | undefined;
}

/**
 * The resolver to ask: `server` (`host`, `host:port`, `[v6]:port`), else the first nameserver of
 * /etc/resolv.conf. A named server goes through the target guard unless `allowPrivate`; the host's own
 * (often 127.0.0.53 or a private address) is the operator's choice, not a target, so it is used as
 * configured. Throws ProbeFailure: `invalid_target` (unparseable), `target_not_allowed`, `timeout`, …
 */
export async function pickResolver(
  server: string | undefined,
  options: PickResolverOptions,
  budget: Budget,
): Promise<Resolver> {
  const named = server !== undefined && server.trim() !== "";
  const parsed = named ? parseServer(server) : await systemResolver();
  const resolved = await resolveAndCheck(parsed.host, {
    allowPrivate: options.allowPrivate || !named,
    signal: budget.signal,
    timeoutMs: Math.max(1, remainingMs(budget)),
    lookup: options.lookup,
  });
  const host = resolved.family === 6 ? `[${resolved.address}]` : resolved.address;
  return {
    address: resolved.address,
    family: resolved.family,
    port: parsed.port,
    label: `${host}:${parsed.port}`,
  };
}

/** UDP loses datagrams: a query is sent twice at most, the first try getting half the time left (dig: 3). */
const TRIES = 2;

/**
 * One query (UDP, TCP when truncated), tried again after a lost answer while the budget allows. The answer
 * comes whatever its rcode: reading NXDOMAIN, SERVFAIL… is the caller's. Throws ProbeFailure.
 */
export async function queryResolver(
  name: string,
  type: DnsQuery["type"],
  resolver: Resolver,
  budget: Budget,
): Promise<DnsQueryResult> {
  for (let attempt = 1; ; attempt++) {
    const left = remainingMs(budget);
    if (left <= 0)
      throw new ProbeFailure("timeout", `no time left to ask ${resolver.label} for ${name} ${type}`);
    try {
      return await queryDns({
        name,
        type,
        address: resolver.address,
        family: resolver.family,
        port: resolver.port,
        timeoutMs: Math.max(1, Math.ceil(attempt < TRIES ? left / 2 : left)),
        signal: budget.signal,
      });
    } catch (error) {
      const lost = error instanceof ProbeFailure && error.code === "timeout" && !budget.signal.aborted;
      if (!lost || attempt >= TRIES) throw error;
    }
  }
}
