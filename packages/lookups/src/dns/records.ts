import {
  type DnsAnswer,
  type DnsQueryResult,
  type DnsRecordType,
  dnsRecordTypes,
  ProbeFailure,
} from "@vantage/probes/dns-query";
import { type Deadline, startDeadline } from "../net/deadline.js";
import { pickResolver, queryResolver, type Resolver } from "../net/resolver.js";
import { type Lookup, LookupError } from "../types.js";
import { type DnsRecord, dnsRecordsInputSchema } from "./schema.js";

/*
 * Why our own wire client (the dns probe's, from @vantage/probes/dns-query) and not node:dns: the spec's
 * records carry a TTL for every type, and node:dns (c-ares) gives one only for A and AAAA (`{ttl: true}`);
 * MX, TXT, NS, CNAME and SOA come back without it. The wire client also shares the probe's handling of
 * truncation (TCP retry), malformed and spoofed answers, and answers in dig's presentation format.
 */

/** The whole lookup, the seven queries in parallel included, when the context does not say otherwise. */
const DEFAULT_TIMEOUT_MS = 5000;

/**
 * The records of one name, like `dig +short NAME TYPE` for each type asked (all seven when `type` is
 * omitted), in the order A, AAAA, MX, TXT, NS, CNAME, SOA, and within a type as the resolver sent them.
 * Values are dig's presentation format: names fully qualified with their trailing dot, MX
 * "10 mail.example.com.", SOA its seven fields, TXT each character-string quoted, joined by spaces.
 * A name that is an alias gives its CNAME record under CNAME, and under A, AAAA… the records the alias
 * leads to (as dig +short's last lines): records the resolver adds for names off that chain are dropped.
 */
export const dnsRecordsLookup: Lookup<"dns"> = {
  kind: "dns",
  inputSchema: dnsRecordsInputSchema,
  run: async (input, ctx) => {
    const deadline = startDeadline(ctx, DEFAULT_TIMEOUT_MS);
    let server: Resolver | undefined;
    try {
      // The guard covers a resolver the context names (unless allowPrivate), not the host's own.
      const resolver = await pickResolver(ctx.dnsServer, ctx, deadline);
      server = resolver;
      const types = input.type ? [input.type] : dnsRecordTypes;
      const settled = await Promise.allSettled(
        types.map((type) => queryResolver(input.domain, type, resolver, deadline)),
      );
      const answer = collect(input.domain, types, settled, resolver.label, deadline);
      if (answer === "NXDOMAIN") return { domain: input.domain, status: "NXDOMAIN", records: [] };
      const { records, failed } = answer;
      return {
        domain: input.domain,
        status: "NOERROR",
        records,
        ...(failed.length > 0 ? { failed_types: failed } : {}),
      };
    } catch (error) {
      throw toLookupError(error, deadline, server?.label ?? ctx.dnsServer ?? "the system resolver");
    } finally {
      deadline.stop();
    }
  },
};

/** A type asked that got no answer, and why. */
export interface FailedType {
  type: DnsRecordType;
  code: "upstream_error" | "upstream_timeout";
  message: string;
}

/**
 * The name does not exist when any query says so (NXDOMAIN without an alias to follow): that outranks the
 * other queries' failures, and is an answer, not an error. Otherwise the types answered give their records
 * and each type that failed (a refusal, SERVFAIL, no answer in time) is listed with its error, so a partial
 * answer never passes for a name without those records. When every type asked failed, the lookup fails
 * with the first failure in type order.
 */
function collect(
  domain: string,
  types: readonly DnsRecordType[],
  settled: PromiseSettledResult<DnsQueryResult>[],
  label: string,
  deadline: Deadline,
): { records: DnsRecord[]; failed: FailedType[] } | "NXDOMAIN" {
  const answered = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  if (answered.some((r) => r.rcode === "NXDOMAIN" && r.answers.length === 0)) return "NXDOMAIN";
  const records: DnsRecord[] = [];
  const failed: FailedType[] = [];
  let first: unknown;
  for (const [i, type] of types.entries()) {
    const s = settled[i];
    if (!s) continue;
    let error: unknown;
    if (s.status === "rejected") error = toLookupError(s.reason, deadline, label);
    // NXDOMAIN with answers: an alias to a name that does not exist. The alias itself does.
    else if (s.value.rcode !== "NOERROR" && s.value.rcode !== "NXDOMAIN") {
      error = new LookupError("upstream_error", `${label} answered ${s.value.rcode} to ${domain} ${type}`);
    } else {
      records.push(...onChain(domain, type, s.value.answers));
      continue;
    }
    first ??= error;
    // A failure that is no upstream one (a bug, a refused resolver) fails the lookup as it is.
    if (
      !(error instanceof LookupError) ||
      (error.code !== "upstream_error" && error.code !== "upstream_timeout")
    )
      throw error;
    failed.push({ type, code: error.code, message: error.message });
  }
  if (failed.length === types.length) throw first;
  return { records, failed };
}

/** The answers of `type` owned by `domain` or by a name its CNAME chain (in the same answer) leads to. */
function onChain(domain: string, type: DnsRecordType, answers: DnsAnswer[]): DnsRecord[] {
  const owners = new Set([`${domain}.`]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const a of answers) {
      const target = a.value.toLowerCase();
      if (a.type === "CNAME" && owners.has(a.name.toLowerCase()) && !owners.has(target)) {
        owners.add(target);
        grew = true;
      }
    }
  }
  return answers
    .filter((a) => a.type === type && owners.has(a.name.toLowerCase()))
    .map((a) => ({ type, value: a.value, ttl: a.ttl }));
}

/** ProbeFailures (the guard's, the wire client's) → the lookup's codes; anything else is a bug, as it is. */
function toLookupError(error: unknown, deadline: Deadline, label: string): unknown {
  if (!(error instanceof ProbeFailure)) return error;
  switch (error.code) {
    case "target_not_allowed":
      return new LookupError("target_not_allowed", `DNS server refused: ${error.message}`);
    case "invalid_target":
      return new LookupError("invalid_input", `bad DNS server: ${error.message}`, [
        { path: "server", message: error.message },
      ]);
    case "timeout":
      if (deadline.expired() || !deadline.signal.aborted) {
        return new LookupError("upstream_timeout", `no answer from ${label} within ${deadline.ms} ms`);
      }
      return new LookupError("upstream_timeout", "the lookup was stopped before an answer came");
    default:
      return new LookupError("upstream_error", `DNS server ${label}: ${error.message}`);
  }
}
