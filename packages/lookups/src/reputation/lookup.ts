import { ProbeFailure, resolveAndCheck } from "@vantage/probes/target-guard";
import { canonicalIp, formatIpv4 } from "../ip/address.js";
import type { IpAttribution } from "../ip/database.js";
import { CLASS_LOOKUP_V4, classifyParsed, parsedAddress, reservedCategories } from "../ip/special-range.js";
import { type Deadline, startDeadline } from "../net/deadline.js";
import { type Budget, pickResolver, type Resolver } from "../net/resolver.js";
import { type Lookup, type LookupContext, LookupError } from "../types.js";
import {
  type AddressMatch,
  type AsnEntry,
  type ReputationDataSource,
  reputationDatasetNames,
} from "./datasets.js";
import { failureReason } from "./dns-check.js";
import { checkDnsbl, type DnsblOutcome } from "./dnsbl.js";
import { checkRdns, type RdnsOutcome } from "./rdns.js";
import { type ReputationInput, type ReputationResult, reputationInputSchema } from "./schema.js";
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
    // An address with no DNS check to make is answered at once: no deadline, no timer to start and stop.
    const now = reputationNow(input, ctx);
    if (now !== undefined) return now;
    const data = ctx.reputation?.data as ReputationDataSource;
    const deadline = startDeadline(ctx, DEFAULT_TIMEOUT_MS);
    try {
      const query = input.kind === "ip" ? input.ip : input.domain;
      const domain = input.kind === "domain" ? input.domain : null;
      const address = input.kind === "ip" ? input.ip : await resolveDomain(input.domain, ctx, deadline);
      const found = offlineFacts(address, query, domain, data, ctx);
      if (!("matched" in found)) return found;
      const { dnsbl, rdns } = await networkChecks(found.ip, ctx, deadline);
      if (ctx.signal?.aborted)
        throw new LookupError("upstream_timeout", "the lookup was stopped before an answer came");
      return finish(found, dnsbl, rdns);
    } finally {
      deadline.stop();
    }
  },
};

/**
 * The reputation lookup's answer, synchronously, when it needs no network: an address (not a domain) and
 * no DNSBL zone or reverse DNS to ask (`ctx.reputation`). The answer `run` gives; undefined when the lookup
 * must go to the network (run it then). Throws `unavailable` without the reputation data.
 */
export function reputationNow(input: ReputationInput, ctx: LookupContext): ReputationResult | undefined {
  const options = ctx.reputation;
  if (!options?.data) throw new LookupError("unavailable", "the reputation data is not loaded");
  if (input.kind !== "ip" || (options.dnsbl?.zones.length ?? 0) > 0 || options.rdns !== false)
    return undefined;
  const found = offlineFacts(input.ip, input.ip, null, options.data, ctx);
  if (!("matched" in found)) return found;
  if (ctx.signal?.aborted)
    throw new LookupError("upstream_timeout", "the lookup was stopped before an answer came");
  return finish(found, NO_DNSBL, null);
}

const NO_DNSBL: readonly DnsblOutcome[] = Object.freeze([]);

/** What the datasets and the IP data say about one public address, before any DNS check. */
interface OfflineFacts {
  ip: string;
  query: string;
  domain: string | null;
  versions: Readonly<Record<string, string>>;
  matched: AddressMatch;
  attribution: IpAttribution | null;
  hostingAsn: AsnEntry | null;
  vpnAsn: AsnEntry | null;
  checked: string[];
  unavailable: Unavailable[];
}

/**
 * The datasets' and the IP data's part of the answer, read in one synchronous stretch (a reload cannot swap
 * the data in between): a reserved address's whole answer, or the facts the DNS checks add to. The address
 * is parsed once, here; the data read the address to look up.
 */
function offlineFacts(
  address: string,
  query: string,
  domain: string | null,
  data: ReputationDataSource,
  ctx: LookupContext,
): OfflineFacts | ReputationResult {
  const code = classifyParsed(address);
  const fixed = fixedParts(data, ctx.ipData);
  if (code >= 0) {
    return {
      ip: address,
      query,
      domain,
      data_versions: fixed.versions,
      score: null,
      score_capped: false,
      risk_level: "not_applicable",
      types: [],
      evidence: [],
      country: null,
      asn: null,
      isp: null,
      reserved: true,
      range: reservedCategories[code] ?? "invalid",
      signals_checked: [],
      signals_unavailable: [],
    };
  }
  const ip = code === CLASS_LOOKUP_V4 ? formatIpv4(parsedAddress.embedded) : address;
  const matched = data.match(ip);
  const attribution = ctx.ipData?.find(ip) ?? null;
  const asn = attribution?.asn ?? null;
  return {
    ip,
    query,
    domain,
    versions: fixed.versions,
    matched,
    attribution,
    hostingAsn: asn === null ? null : data.hostingAsn(asn),
    vpnAsn: asn === null ? null : data.vpnAsn(asn),
    checked: fixed.checked.slice(),
    unavailable: fixed.unavailable.slice(),
  };
}

/** The answer for a public address: its facts with the DNS checks' outcomes added, scored. */
function finish(
  facts: OfflineFacts,
  dnsbl: readonly DnsblOutcome[],
  rdns: RdnsOutcome | null,
): ReputationResult {
  const { checked, unavailable, attribution } = facts;
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
  const asn = attribution?.asn ?? null;
  const scored = scoreReputation({
    ip: facts.ip,
    asn,
    asOrg: attribution?.org ?? null,
    torExit: facts.matched.torExit,
    hostingAsn: facts.hostingAsn,
    vpnAsn: facts.vpnAsn,
    datacenterRange: facts.matched.datacenterRange,
    vpnRange: facts.matched.vpnRange,
    cloudProvider: facts.matched.cloudProvider,
    dnsbl,
    rdns,
    versions: facts.versions,
  });
  // One literal, its keys in the order answers have always had (the reserved answer's too).
  return {
    ip: facts.ip,
    query: facts.query,
    domain: facts.domain,
    data_versions: facts.versions,
    score: scored.score,
    score_capped: scored.score_capped,
    risk_level: scored.risk_level,
    types: scored.types,
    evidence: scored.evidence,
    country: attribution?.country ?? null,
    asn: asn === null ? null : `AS${asn}`,
    isp: attribution?.org ?? null,
    reserved: false,
    range: null,
    signals_checked: checked,
    signals_unavailable: unavailable,
  };
}

/** What every answer from one set of data repeats: the versions, and which signals it can check. */
interface FixedParts {
  versions: Readonly<Record<string, string>>;
  checked: readonly string[];
  unavailable: readonly Unavailable[];
}

// The last data's parts: they change only when the data does (a reload or replacement makes new `versions`
// and `loaded` objects) or the IP data's version does.
let fixedFor: { versions: unknown; loaded: unknown; ipVersion: string | undefined; parts: FixedParts } = {
  versions: undefined,
  loaded: undefined,
  ipVersion: undefined,
  parts: { versions: {}, checked: [], unavailable: [] },
};

function fixedParts(data: ReputationDataSource, ipData: LookupContext["ipData"]): FixedParts {
  const versions = data.versions;
  const loaded = data.loaded;
  const ipVersion = ipData?.version;
  if (fixedFor.versions === versions && fixedFor.loaded === loaded && fixedFor.ipVersion === ipVersion) {
    return fixedFor.parts;
  }
  const all: Record<string, string> = { ...versions };
  if (ipVersion !== undefined) all.ip_data = ipVersion;
  const checked: string[] = [];
  const unavailable: Unavailable[] = [];
  for (const name of reputationDatasetNames) {
    if (!loaded.includes(name)) {
      unavailable.push({ signal: name, reason: "dataset not loaded" });
    } else if ((name === "hosting_asns" || name === "vpn_asns") && !ipData) {
      unavailable.push({ signal: name, reason: "needs the AS number, and the IP data is not loaded" });
    } else {
      checked.push(name);
    }
  }
  if (!ipData) {
    unavailable.push({ signal: "ip_data", reason: "the IP data is not loaded: country, AS and ISP unknown" });
  }
  // Shared by every answer from this data (answers are read, never changed): frozen, so it stays shared.
  const parts = { versions: Object.freeze(all), checked, unavailable };
  fixedFor = { versions, loaded, ipVersion, parts };
  return parts;
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
    // The resolver's own failure already reads `cannot resolve <domain>: why (code)`: not said twice.
    const said = error.message.startsWith("cannot resolve ");
    throw new LookupError(
      "upstream_error",
      said ? error.message : `cannot resolve ${domain}: ${error.message}`,
    );
  }
}
