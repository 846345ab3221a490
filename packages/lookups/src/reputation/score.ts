import type { DnsblListing, DnsblOutcome } from "./dnsbl.js";
import type { RdnsOutcome } from "./rdns.js";

/*
 * The transparent model (docs/reputation.md): each signal family adds at most one evidence item with its
 * weight, score = min(100, Σ weight), so the evidence visibly adds up to the score. The weights and bands
 * below are the documentation's table; tests and docs read them from here.
 */

/** Weight per evidence signal. `dnsbl_other` is per listing zone, up to DNSBL_OTHER_MAX. */
export const REPUTATION_WEIGHTS = {
  tor_exit: 60,
  open_proxy: 55,
  spamhaus_drop: 75,
  spamhaus_xbl: 50,
  spamhaus_sbl: 40,
  vpn: 40,
  hosting: 25,
  dnsbl_other: 10,
  rdns_vpn_proxy: 10,
  rdns_hosting: 5,
  rdns_unconfirmed: 3,
  residential: 0,
} as const;
export const DNSBL_OTHER_MAX = 20;

export type ReputationSignal = keyof typeof REPUTATION_WEIGHTS;

/** Risk bands over the score, inclusive bounds. */
export const RISK_BANDS = [
  { level: "low", min: 0, max: 24 },
  { level: "medium", min: 25, max: 49 },
  { level: "high", min: 50, max: 74 },
  { level: "critical", min: 75, max: 100 },
] as const;
export type RiskLevel = (typeof RISK_BANDS)[number]["level"];

/** The tags, in the order `types` lists them. */
export const reputationTypes = ["proxy", "vpn", "hosting", "tor", "residential"] as const;
export type ReputationType = (typeof reputationTypes)[number];

export interface Evidence {
  signal: ReputationSignal;
  description: string;
  weight: number;
}

/** Everything the checks found about one public address. */
export interface ReputationFacts {
  ip: string;
  /** From the IP data; null when unknown. */
  asn: number | null;
  /** The AS organisation from the IP data, preferred over a list's comment in descriptions. */
  asOrg: string | null;
  torExit: boolean;
  /** A hosting-ASN list entry for `asn` (its comment as the name). */
  hostingAsn: { name: string | null } | null;
  vpnAsn: { name: string | null } | null;
  datacenterRange: boolean;
  vpnRange: boolean;
  cloudProvider: string | null;
  /** One outcome per zone asked; none when DNSBLs are not configured. */
  dnsbl: readonly DnsblOutcome[];
  /** null when reverse DNS was not checked. */
  rdns: RdnsOutcome | null;
  /** Data dates named in descriptions (e.g. the Tor list's). */
  versions: Readonly<Record<string, string>>;
}

export interface ReputationScore {
  score: number;
  /** Σ weight went past 100 and the score was capped: the evidence then adds up to more than the score. */
  score_capped: boolean;
  risk_level: RiskLevel;
  types: ReputationType[];
  evidence: Evidence[];
}

export function riskLevel(score: number): RiskLevel {
  for (const band of RISK_BANDS) if (score <= band.max) return band.level;
  return "critical";
}

/**
 * Scores the facts. Evidence comes heaviest first; 0-weight items (residential) are kept: they explain a
 * tag and add nothing. A family never counts twice: a Tor exit also on a VPN ASN is tor + vpn, but an
 * address on a hosting ASN and in a cloud range is one hosting item naming both, and an exit in the Tor
 * list that Tor's DNSEL lists too is one tor_exit item naming both.
 */
export function scoreReputation(facts: ReputationFacts): ReputationScore {
  // Module-level helpers rather than closures made per call: this runs once per lookup.
  const evidence: Evidence[] = [];
  const types = new Set<ReputationType>();
  const as = asLabel(facts);
  const listed = facts.dnsbl.length === 0 ? NONE : facts.dnsbl.filter((o) => o.status === "listed");

  // The bulk exit list and a DNSEL zone are two sources for one family.
  const torSources: string[] = [];
  if (facts.torExit) {
    const date = facts.versions.tor_exits;
    torSources.push(`${facts.ip} is in the Tor exit list${date ? ` (data ${date})` : ""}`);
  }
  const dnsel = hits(listed, "tor");
  if (dnsel.length > 0) torSources.push(describe(dnsel));
  if (torSources.length > 0) add(evidence, types, "tor_exit", torSources.join("; "), "tor");

  const proxy = hits(listed, "proxy");
  if (proxy.length > 0) add(evidence, types, "open_proxy", describe(proxy), "proxy");
  const drop = hits(listed, "drop");
  if (drop.length > 0) add(evidence, types, "spamhaus_drop", describe(drop));
  const xbl = hits(listed, "xbl");
  if (xbl.length > 0) add(evidence, types, "spamhaus_xbl", describe(xbl));
  const sbl = hits(listed, "sbl");
  if (sbl.length > 0) add(evidence, types, "spamhaus_sbl", describe(sbl));

  const vpnReasons: string[] = [];
  if (facts.vpnAsn) vpnReasons.push(`${as ?? "its AS"} is a VPN provider's ASN`);
  if (facts.vpnRange) vpnReasons.push("it is in a known VPN range");
  if (vpnReasons.length > 0) add(evidence, types, "vpn", sentence(vpnReasons), "vpn");

  const hostingReasons: string[] = [];
  if (facts.hostingAsn) hostingReasons.push(`${as ?? "its AS"} is a hosting ASN`);
  if (facts.cloudProvider) hostingReasons.push(`it is in ${facts.cloudProvider}'s published cloud ranges`);
  if (facts.datacenterRange) hostingReasons.push("it is in a datacenter range");
  if (hostingReasons.length > 0) add(evidence, types, "hosting", sentence(hostingReasons), "hosting");

  // Listings that are none of the above, one per zone; PBL is a policy listing, read as a residential hint.
  const otherZones = listed.filter((o) => o.listings.some((l) => l.category === "other"));
  if (otherZones.length > 0) {
    const text = otherZones
      .map((o) => {
        const codes = o.listings.filter((l) => l.category === "other");
        return `${o.zone} lists it: ${codes.map((l) => `${l.meaning}`).join(", ")}`;
      })
      .join("; ");
    const weight = Math.min(DNSBL_OTHER_MAX, REPUTATION_WEIGHTS.dnsbl_other * otherZones.length);
    add(evidence, types, "dnsbl_other", text, undefined, weight);
  }

  const rdns = facts.rdns;
  if (rdns?.status === "answered") {
    const { hints, name } = rdns;
    if (hints.vpnProxy) {
      add(
        evidence,
        types,
        "rdns_vpn_proxy",
        `its PTR name ${name} contains "${hints.vpnProxy.keyword}"`,
        hints.vpnProxy.tag,
      );
    }
    if (hints.hosting && !types.has("hosting")) {
      add(
        evidence,
        types,
        "rdns_hosting",
        `its PTR name ${name} looks like a hosting name (${hints.hosting})`,
        "hosting",
      );
    }
    if (rdns.confirmed === false) {
      add(evidence, types, "rdns_unconfirmed", `its PTR name ${name} does not resolve back to ${facts.ip}`);
    }
  } else if (rdns?.status === "no_ptr") {
    add(evidence, types, "rdns_unconfirmed", `${facts.ip} has no PTR record`);
  }

  // Residential only where nothing says hosting, VPN or Tor.
  if (!types.has("hosting") && !types.has("vpn") && !types.has("tor")) {
    const reasons: string[] = [];
    const pbl = hits(listed, "pbl");
    if (pbl.length > 0) reasons.push(describe(pbl));
    if (rdns?.status === "answered" && rdns.hints.residential) {
      reasons.push(`its PTR name ${rdns.name} looks like an access network's (${rdns.hints.residential})`);
    }
    if (reasons.length > 0) add(evidence, types, "residential", reasons.join("; "), "residential");
  }

  if (evidence.length > 1) evidence.sort(heaviestFirst);
  let total = 0;
  for (const e of evidence) total += e.weight;
  const score = Math.min(100, total);
  const tags: ReputationType[] = [];
  if (types.size > 0) for (const t of reputationTypes) if (types.has(t)) tags.push(t);
  return {
    score,
    score_capped: total > 100,
    risk_level: riskLevel(score),
    types: tags,
    evidence,
  };
}

type Listed = Extract<DnsblOutcome, { status: "listed" }>;
const NONE: readonly Listed[] = Object.freeze([]);
const NO_HITS: readonly { zone: string; l: DnsblListing }[] = Object.freeze([]);

function add(
  evidence: Evidence[],
  types: Set<ReputationType>,
  signal: ReputationSignal,
  description: string,
  tag?: ReputationType,
  weight?: number,
): void {
  evidence.push({ signal, description, weight: weight ?? REPUTATION_WEIGHTS[signal] });
  if (tag) types.add(tag);
}

/** The listings of `category` across the zones that list the address, each with its zone. */
function hits(
  listed: readonly DnsblOutcome[],
  category: DnsblListing["category"],
): readonly { zone: string; l: DnsblListing }[] {
  if (listed.length === 0) return NO_HITS;
  return listed.flatMap((o) =>
    o.status === "listed"
      ? o.listings.filter((l) => l.category === category).map((l) => ({ zone: o.zone, l }))
      : [],
  );
}

function describe(found: readonly { zone: string; l: DnsblListing }[]): string {
  return found.map(({ zone, l }) => `${zone} lists it: ${l.meaning} (${l.code})`).join("; ");
}

function heaviestFirst(a: Evidence, b: Evidence): number {
  return b.weight - a.weight;
}

/** `AS14061 (DigitalOcean, LLC)`: the IP data's organisation, else the list's comment; null without an ASN. */
function asLabel(facts: ReputationFacts): string | null {
  if (facts.asn === null) return null;
  const name = facts.asOrg ?? facts.hostingAsn?.name ?? facts.vpnAsn?.name ?? null;
  return name ? `AS${facts.asn} (${name})` : `AS${facts.asn}`;
}

/** "a", "a and b", "a, b and c", with a capital first letter. */
function sentence(parts: string[]): string {
  const text = parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
