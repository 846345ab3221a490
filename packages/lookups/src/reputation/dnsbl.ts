import { domainSchema } from "../dns/schema.js";
import { parseIpv4 } from "../ip/address.js";
import { type Budget, queryResolver, type Resolver } from "../net/resolver.js";
import { failureReason, reversedLabels } from "./dns-check.js";

/**
 * How a list's answers are read. A DNSBL answers a listed address with one or more A records in
 * 127.0.0.0/8 whose last octet says why; NXDOMAIN means not listed. 127.255.255.x is an error from the
 * list (Spamhaus: queried through a public resolver, over quota, a typo in the zone), never a listing.
 * `dnsel` is Tor's DNS exit list (`dnsel.torproject.org`): any listing there means a Tor exit.
 */
export const dnsblProfiles = ["spamhaus", "dronebl", "spamcop", "dnsel", "generic"] as const;
export type DnsblProfile = (typeof dnsblProfiles)[number];

export interface DnsblZone {
  /** The zone queried, lower-case ASCII, e.g. `zen.spamhaus.org`. */
  zone: string;
  profile: DnsblProfile;
}

/**
 * What a listing means for the score: Spamhaus DROP, XBL, SBL (with CSS and BCL), PBL (a policy listing of
 * end-user ranges: a residential hint, not abuse), an open proxy (DroneBL), a Tor exit (DNSEL), or any
 * other listing.
 */
export type DnsblCategory = "drop" | "xbl" | "sbl" | "pbl" | "proxy" | "tor" | "other";

export interface DnsblListing {
  /** The A record answered, e.g. `127.0.0.4`. */
  code: string;
  category: DnsblCategory;
  /** What the list says the code means, e.g. "XBL: exploited host (botnet, malware, open proxy)". */
  meaning: string;
}

export type DnsblOutcome = DnsblZone &
  (
    | { status: "listed"; listings: DnsblListing[] }
    | { status: "not_listed" }
    | { status: "unavailable"; reason: string }
  );

/** Zones whose profile is known from the name (Spamhaus's public and DQS zones, DroneBL, SpamCop, Tor). */
function profileOf(zone: string): DnsblProfile {
  if (zone.endsWith(".spamhaus.org") || zone.endsWith(".dq.spamhaus.net")) return "spamhaus";
  if (zone === "dnsbl.dronebl.org") return "dronebl";
  if (zone === "bl.spamcop.net") return "spamcop";
  if (zone === "dnsel.torproject.org") return "dnsel";
  return "generic";
}

/**
 * A comma-separated zone list (the controller's VANTAGE_DNSBL_ZONES, say): `zone` takes the
 * profile known for that name (generic when none), `zone=profile` sets it, e.g.
 * `zen.spamhaus.org, dnsbl.dronebl.org, bl.example.test=spamhaus`. Blank text is no zones. Throws an Error
 * saying which entry is wrong: an empty entry, a zone that is not a domain name, an unknown profile, a
 * zone listed twice.
 */
export function parseDnsblZones(text: string): DnsblZone[] {
  if (text.trim() === "") return [];
  const zones: DnsblZone[] = [];
  for (const [i, raw] of text.split(",").entries()) {
    const entry = raw.trim();
    const where = `DNSBL zone list, entry ${i + 1}`;
    if (entry === "") throw new Error(`${where} is empty (a stray comma?)`);
    const eq = entry.indexOf("=");
    const zoneText = eq >= 0 ? entry.slice(0, eq).trim() : entry;
    const profileText =
      eq >= 0
        ? entry
            .slice(eq + 1)
            .trim()
            .toLowerCase()
        : null;
    const parsed = domainSchema.safeParse(zoneText);
    if (!parsed.success) {
      throw new Error(
        `${where} (${JSON.stringify(zoneText)}): ${parsed.error.issues[0]?.message ?? "not a zone"}`,
      );
    }
    const zone = parsed.data;
    if (!zone.includes("."))
      throw new Error(`${where} (${JSON.stringify(zone)}): a DNSBL zone has at least two labels`);
    let profile = profileOf(zone);
    if (profileText !== null) {
      if (!(dnsblProfiles as readonly string[]).includes(profileText)) {
        throw new Error(
          `${where} (${JSON.stringify(entry)}): profile must be one of ${dnsblProfiles.join(", ")}`,
        );
      }
      profile = profileText as DnsblProfile;
    }
    if (zones.some((z) => z.zone === zone)) throw new Error(`${where}: ${zone} is listed twice`);
    zones.push({ zone, profile });
  }
  return zones;
}

type CodeTable = Record<number, [DnsblCategory, string]>;

const XBL: [DnsblCategory, string] = ["xbl", "XBL: exploited host (botnet, malware, open proxy)"];
const PBL: [DnsblCategory, string] = [
  "pbl",
  "PBL: end-user range not meant to send mail directly (policy, not abuse)",
];

const codeTables: Record<DnsblProfile, CodeTable> = {
  spamhaus: {
    2: ["sbl", "SBL: spam source or spam operation"],
    3: ["sbl", "CSS: snowshoe spam source"],
    4: XBL,
    5: XBL,
    6: XBL,
    7: XBL,
    9: ["drop", "DROP: hijacked or criminal network (Don't Route Or Peer)"],
    10: PBL,
    11: PBL,
    30: ["sbl", "BCL: botnet controller"],
  },
  dronebl: {
    2: ["other", "DroneBL: sample"],
    3: ["other", "DroneBL: IRC spam drone"],
    5: ["other", "DroneBL: bottler"],
    6: ["other", "DroneBL: unknown spambot or drone"],
    7: ["other", "DroneBL: DDoS drone"],
    8: ["proxy", "DroneBL: open SOCKS proxy"],
    9: ["proxy", "DroneBL: open HTTP proxy"],
    10: ["proxy", "DroneBL: proxy chain"],
    11: ["proxy", "DroneBL: web page proxy"],
    12: ["other", "DroneBL: open DNS resolver"],
    13: ["other", "DroneBL: brute-force attacker"],
    14: ["proxy", "DroneBL: open WinGate proxy"],
    15: ["other", "DroneBL: compromised router or gateway"],
    16: ["other", "DroneBL: autorooting worm"],
    17: ["other", "DroneBL: automatically detected botnet address"],
    18: ["other", "DroneBL: possibly compromised DNS/MX host"],
    19: ["other", "DroneBL: abused VPN service"],
    255: ["other", "DroneBL: uncategorised threat"],
  },
  spamcop: { 2: ["other", "SpamCop: reported spam source"] },
  dnsel: {},
  generic: {},
};

/**
 * A code no table names: "other", except on Tor's DNSEL, which answers 127.0.0.2 for an exit and reserves
 * the rest of 127.0.0.0/8 for exits too.
 */
function unlistedCode(profile: DnsblProfile, code: string): [DnsblCategory, string] {
  return profile === "dnsel" ? ["tor", "Tor DNSEL: Tor exit relay"] : ["other", `listed (${code})`];
}

const spamhausErrors: Record<number, string> = {
  252: "the zone name is mistyped",
  254: "queries through public or open resolvers are refused (use your own resolver, or a DQS key)",
  255: "too many queries (over the free-use limit)",
};

/**
 * The A records a list answered, read with its profile: `listed` with each code's meaning, `unavailable`
 * on a 127.255.255.x error code or an answer outside 127.0.0.0/8 (a resolver that rewrites NXDOMAIN to an
 * advertising page gives those), `not_listed` when there is none.
 */
export function readDnsblAnswer(
  profile: DnsblProfile,
  addresses: readonly string[],
):
  | { status: "listed"; listings: DnsblListing[] }
  | { status: "not_listed" }
  | { status: "unavailable"; reason: string } {
  if (addresses.length === 0) return { status: "not_listed" };
  const listings: DnsblListing[] = [];
  for (const code of addresses) {
    const n = parseIpv4(code);
    if (n < 0 || n >>> 24 !== 127) {
      return { status: "unavailable", reason: `answered ${code}, outside 127.0.0.0/8: not a DNSBL answer` };
    }
    if (n >>> 8 === 0x7fffff) {
      const why = profile === "spamhaus" ? spamhausErrors[n & 255] : undefined;
      return { status: "unavailable", reason: `answered the error code ${code}${why ? `: ${why}` : ""}` };
    }
    const known = n >>> 8 === 0x7f0000 ? codeTables[profile][n & 255] : undefined;
    const [category, meaning] = known ?? unlistedCode(profile, code);
    if (!listings.some((l) => l.code === code)) listings.push({ code, category, meaning });
  }
  return { status: "listed", listings };
}

/** `<reversed address>.<zone>`, the name a DNSBL is asked about. */
export function dnsblQueryName(ip: string, zone: string): string {
  return `${reversedLabels(ip)}.${zone}`;
}

/**
 * Asks every zone about `ip` at once, within the budget. A zone that does not answer in time, answers
 * SERVFAIL or REFUSED, or cannot be reached is `unavailable` with the reason: never listed.
 */
export async function checkDnsbl(
  ip: string,
  zones: readonly DnsblZone[],
  resolver: Resolver,
  budget: Budget,
): Promise<DnsblOutcome[]> {
  return Promise.all(
    zones.map(async (zone): Promise<DnsblOutcome> => {
      try {
        const result = await queryResolver(dnsblQueryName(ip, zone.zone), "A", resolver, budget);
        if (result.rcode === "NXDOMAIN") return { ...zone, status: "not_listed" };
        if (result.rcode !== "NOERROR") {
          return { ...zone, status: "unavailable", reason: `${resolver.label} answered ${result.rcode}` };
        }
        const addresses = result.answers.filter((a) => a.type === "A").map((a) => a.value);
        return { ...zone, ...readDnsblAnswer(zone.profile, addresses) };
      } catch (error) {
        return { ...zone, status: "unavailable", reason: failureReason(error) };
      }
    }),
  );
}
