import { ProbeFailure, resolveAndCheck } from "@vantage/probes/target-guard";
import { canonicalIp } from "../ip/address.js";
import { classifyAddress } from "../ip/special-range.js";
import { type Deadline, startDeadline } from "../net/deadline.js";
import { type Budget, pickResolver, type Resolver } from "../net/resolver.js";
import { type Lookup, type LookupContext, LookupError } from "../types.js";
import { type ReputationDataSource, reputationDatasetNames } from "./datasets.js";
import { failureReason } from "./dns-check.js";
import { checkDnsbl, type DnsblOutcome } from "./dnsbl.js";
import { checkRdns, type RdnsOutcome } from "./rdns.js";
import { type ReputationResult, reputationInputSchema } from "./schema.js";
import { scoreReputation } from "./score.js";

/** The whole lookup, a domain's resolution and every DNS check included, unless the context says otherwise. */
const DEFAULT_TIMEOUT_MS = 3000;
/** Share of the time left that the DNS checks may use: they end before the deadline, and the answer is on time. */
const NETWORK_SHARE = 0.9;

type Unavailable = ReputationResult["signals_unavailable"][number];

/**
 * How risky an address looks, 0–100, from the evidence behind it (docs/reputation.md): the offline datasets
 * (ctx.reputation.data: Tor exits, hosting and VPN ASNs and ranges, cloud ranges), the AS number from the
 * IP data (ctx.ipData), DNSBLs (ctx.reputation.dnsbl) and reverse DNS. What could not be checked is listed
 * in `signals_unavailable` and the lookup still answers: a DNSBL or resolver that is down makes the
 * evidence thinner, not the lookup fail. Reserved addresses are not applicable and cause no query at all.
 */
export const reputationLookup: Lookup<"reputation"> = {
  kind: "reputation",
  inputSchema: reputationInputSchema,
  run: async (input, ctx) => {
    const data = ctx.reputation?.data;
    if (!data) throw new LookupError("unavailable", "the reputation data is not loaded");
    const deadline = startDeadline(ctx, DEFAULT_TIMEOUT_MS);
    try {
      const query = input.kind === "ip" ? input.ip : input.domain;
      const domain = input.kind === "domain" ? input.domain : null;
      const address = input.kind === "ip" ? input.ip : await resolveDomain(input.domain, ctx, deadline);
      return await assess({ address, query, domain }, data, ctx, deadline);
    } finally {
      deadline.stop();
    }
  },
};

async function assess(
  target: { address: string; query: string; domain: string | null },
  data: ReputationDataSource,
  ctx: LookupContext,
  deadline: Deadline,
): Promise<ReputationResult> {
  const verdict = classifyAddress(target.address);
  // Everything read from the data in one synchronous stretch: a reload cannot swap it in between.
  const versions: Record<string, string> = { ...data.versions };
  if (ctx.ipData) versions.ip_data = ctx.ipData.version;
  const base = { ip: target.address, query: target.query, domain: target.domain, data_versions: versions };
  if ("reserved" in verdict) {
    return {
      ...base,
      score: null,
      score_capped: false,
      risk_level: "not_applicable",
      types: [],
      evidence: [],
      country: null,
      asn: null,
      isp: null,
      reserved: true,
      range: verdict.reserved,
      signals_checked: [],
      signals_unavailable: [],
    };
  }
  const ip = verdict.lookup;
  const matched = data.match(ip);
  const attribution = ctx.ipData?.find(ip) ?? null;
  const asn = attribution?.asn ?? null;
  const hostingAsn = asn === null ? null : data.hostingAsn(asn);
  const vpnAsn = asn === null ? null : data.vpnAsn(asn);
  const checked: string[] = [];
  const unavailable: Unavailable[] = [];
  for (const name of reputationDatasetNames) {
    if (!data.loaded.includes(name)) {
      unavailable.push({ signal: name, reason: "dataset not loaded" });
    } else if ((name === "hosting_asns" || name === "vpn_asns") && !ctx.ipData) {
      unavailable.push({ signal: name, reason: "needs the AS number, and the IP data is not loaded" });
    } else {
      checked.push(name);
    }
  }
  if (!ctx.ipData) {
    unavailable.push({ signal: "ip_data", reason: "the IP data is not loaded: country, AS and ISP unknown" });
  }

  const { dnsbl, rdns } = await networkChecks(ip, ctx, deadline);
  if (ctx.signal?.aborted)
    throw new LookupError("upstream_timeout", "the lookup was stopped before an answer came");
  for (const outcome of dnsbl) {
    const signal = `dnsbl:${outcome.zone}`;
    if (outcome.status === "unavailable") unavailable.push({ signal, reason: outcome.reason });
    else checked.push(signal);
  }
  if (rdns?.status === "unavailable") unavailable.push({ signal: "rdns", reason: rdns.reason });
  else if (rdns) checked.push("rdns");
  if (rdns?.status === "answered" && rdns.forwardProblem !== null) {
    unavailable.push({ signal: "rdns_forward", reason: rdns.forwardProblem });
  }

  const scored = scoreReputation({
    ip,
    asn,
    asOrg: attribution?.org ?? null,
    torExit: matched.torExit,
    hostingAsn,
    vpnAsn,
    datacenterRange: matched.datacenterRange,
    vpnRange: matched.vpnRange,
    cloudProvider: matched.cloudProvider,
    dnsbl,
    rdns,
    versions,
  });
  return {
    ...base,
    ip,
    ...scored,
    country: attribution?.country ?? null,
    asn: asn === null ? null : `AS${asn}`,
    isp: attribution?.org ?? null,
    reserved: false,
    range: null,
    signals_checked: checked,
    signals_unavailable: unavailable,
  };
}

/**
 * The DNSBL zones and the reverse DNS, in parallel, ending within NETWORK_SHARE of the time left. DNSBLs
 * are asked through `ctx.reputation.dnsbl.server` when given (the operator's, unguarded), else through the
 * context's resolver, which reverse DNS always uses.
 */
async function networkChecks(
  ip: string,
  ctx: LookupContext,
  deadline: Deadline,
): Promise<{ dnsbl: DnsblOutcome[]; rdns: RdnsOutcome | null }> {
  const options = ctx.reputation ?? {};
  const zones = options.dnsbl?.zones ?? [];
  const rdnsOn = options.rdns !== false;
  if (zones.length === 0 && !rdnsOn) return { dnsbl: [], rdns: null };
  const budget: Budget = {
    signal: deadline.signal,
    endsAt: performance.now() + deadline.remaining() * NETWORK_SHARE,
  };
  let contextResolver: Promise<Resolver | string> | undefined;
  const fromContext = () => {
    contextResolver ??= chosen(pickResolver(ctx.dnsServer, ctx, budget));
    return contextResolver;
  };
  const dnsblServer = options.dnsbl?.server;
  const runDnsbl = async (): Promise<DnsblOutcome[]> => {
    if (zones.length === 0) return [];
    const resolver = dnsblServer
      ? await chosen(pickResolver(dnsblServer, { allowPrivate: true, lookup: ctx.lookup }, budget))
      : await fromContext();
    if (typeof resolver === "string") {
      return zones.map((zone) => ({ ...zone, status: "unavailable", reason: `resolver: ${resolver}` }));
    }
    return checkDnsbl(ip, zones, resolver, budget);
  };
  const runRdns = async (): Promise<RdnsOutcome | null> => {
    if (!rdnsOn) return null;
    const resolver = await fromContext();
    if (typeof resolver === "string") return { status: "unavailable", reason: `resolver: ${resolver}` };
    return checkRdns(ip, resolver, budget);
  };
  const [dnsbl, rdns] = await Promise.all([runDnsbl(), runRdns()]);
  return { dnsbl, rdns };
}

/** The resolver, or why there is none (unparseable, refused by the guard, its name unresolvable). */
function chosen(picking: Promise<Resolver>): Promise<Resolver | string> {
  return picking.catch((error: unknown) => failureReason(error));
}

/**
 * Names that do not exist (or have no address) are `not_found`; the getaddrinfo codes saying so, which the
 * resolver's message ends with (bare, or after its words in parentheses).
 */
const NO_ADDRESS = /[ (](ENOTFOUND|ENODATA|EAI_NONAME|EAI_NODATA)\)?$/;

/**
 * The first address `domain` resolves to, through ctx.lookup (getaddrinfo when omitted). The guard refuses
 * nothing here: a private answer is scored as not applicable, not refused, since nothing connects to it.
 */
async function resolveDomain(domain: string, ctx: LookupContext, deadline: Deadline): Promise<string> {
  try {
    const resolved = await resolveAndCheck(domain, {
      allowPrivate: true,
      signal: deadline.signal,
      lookup: ctx.lookup,
    });
    const canonical = canonicalIp(resolved.address);
    return canonical.ok ? canonical.ip : resolved.address;
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    if (error.code === "timeout" || deadline.signal.aborted) {
      throw new LookupError(
        "upstream_timeout",
        deadline.expired()
          ? `no address for ${domain} within ${deadline.ms} ms`
          : "the lookup was stopped before an answer came",
      );
    }
    if (NO_ADDRESS.test(error.message)) throw new LookupError("not_found", `${domain} has no address`);
    throw new LookupError("upstream_error", `cannot resolve ${domain}: ${error.message}`);
  }
}
