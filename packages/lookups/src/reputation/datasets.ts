import { ipv6Words, parseIpv4, parseIpv6 } from "../ip/address.js";
import { type AddressSet, hasV4, hasV6, parseAddressList, unionSets } from "./address-set.js";
import type { AsnList } from "./asn-list.js";

/**
 * The datasets the reputation lookup reads, by the names the API reports them under (`signals_checked`,
 * `data_versions`) and that `ReputationDataHolder.replaceDataset` takes.
 */
export const reputationDatasetNames = [
  "tor_exits",
  "hosting_asns",
  "vpn_asns",
  "datacenter_ranges",
  "vpn_ranges",
  "cloud_ranges",
] as const;
export type ReputationDatasetName = (typeof reputationDatasetNames)[number];

/** The compiled tables; a dataset that was not found is absent. */
export interface ReputationDatasets {
  /** Tor exit addresses, matched exactly. */
  tor_exits?: AddressSet;
  /** X4BNet's curated hosting/datacenter ASNs, with their comment as the name. */
  hosting_asns?: AsnList;
  /** X4BNet's VPN-operator ASNs. */
  vpn_asns?: AsnList;
  /** X4BNet's generated "not an eyeball network" CIDRs (datacenters and VPNs), IPv4 and IPv6. */
  datacenter_ranges?: AddressSet;
  /** X4BNet's generated VPN CIDRs, IPv4 and IPv6. */
  vpn_ranges?: AddressSet;
  /** Per provider (lord-alfred/ipranges directory name: amazon, google…), its published ranges. */
  cloud_ranges?: ReadonlyMap<string, AddressSet>;
}

/** What buildReputationData takes: plain data and typed arrays, which a worker thread can hand over. */
export interface ReputationParts {
  dir: string;
  datasets: ReputationDatasets;
  versions: Record<string, string>;
  missing: ReputationDatasetName[];
}

/** What the address-keyed datasets say about one address; false/null where a dataset is not loaded. */
export interface AddressMatch {
  torExit: boolean;
  datacenterRange: boolean;
  vpnRange: boolean;
  /** The first provider, by name, whose published ranges hold the address. */
  cloudProvider: string | null;
}

export interface AsnEntry {
  asn: number;
  /** The list's comment for it, e.g. "DIGITALOCEAN-ASN - Digital Ocean, Inc., US"; null when it has none. */
  name: string | null;
}

/**
 * What the reputation lookup reads (ctx.reputation.data): a ReputationData or the ReputationDataHolder
 * swapping them. A lookup reads everything it needs in one synchronous stretch, so a swap cannot mix two
 * datasets' answers into one result.
 */
export interface ReputationDataSource {
  /**
   * Per loaded dataset, its data date (or the version a replacement was given). Cloud ranges are versioned
   * per provider, as `cloud_ranges/<provider>`.
   */
  readonly versions: Readonly<Record<string, string>>;
  readonly loaded: readonly ReputationDatasetName[];
  /** Datasets not found where they were looked for: their signals are reported unavailable. */
  readonly missing: readonly ReputationDatasetName[];
  /** The address-keyed datasets' answers for an address (any valid text; IPv4-mapped answers as IPv4). */
  match(ip: string): AddressMatch;
  hostingAsn(asn: number): AsnEntry | null;
  vpnAsn(asn: number): AsnEntry | null;
}

/** One loaded, immutable set of datasets. A reload or replacement builds another and swaps it in. */
export interface ReputationData extends ReputationDataSource {
  /** The directory it was read from; null when it was built from text only. */
  readonly dir: string | null;
  readonly datasets: ReputationDatasets;
  /** Entries read per dataset (cloud ranges per provider, as in `versions`). */
  readonly counts: Readonly<Record<string, number>>;
}

const PROVIDER = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** Whether `name` can be a cloud provider's key: lower-case letters, digits, `-`, `_`; at most 32. */
export function isProviderName(name: string): boolean {
  return PROVIDER.test(name);
}

/**
 * An address dataset from its texts (the IPv4 and IPv6 files, or one text holding both), each parsed with
 * parseAddressList (`cidr` false: single addresses only, as the Tor exits), joined into one set.
 */
export function parseAddressTexts(
  texts: readonly { text: string; label: string }[],
  cidr: boolean,
): AddressSet {
  return unionSets(texts.map((t) => parseAddressList(t.text, { label: t.label, cidr })));
}

/** Entries per dataset, keyed as `versions` is. */
function countsOf(datasets: ReputationDatasets): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of reputationDatasetNames) {
    const dataset = datasets[name];
    if (dataset === undefined) continue;
    if (name === "cloud_ranges") {
      for (const [provider, set] of dataset as ReadonlyMap<string, AddressSet>) {
        counts[`cloud_ranges/${provider}`] = set.entries;
      }
    } else if (dataset instanceof Map) {
      counts[name] = dataset.size;
    } else {
      counts[name] = (dataset as AddressSet).entries;
    }
  }
  return counts;
}

/**
 * The ReputationData answering from `datasets`. `versions` must hold every loaded dataset's version (cloud
 * ranges per provider); `missing` lists what was looked for and not found.
 */
export function buildReputationData(parts: {
  dir: string | null;
  datasets: ReputationDatasets;
  versions: Record<string, string>;
  missing: readonly ReputationDatasetName[];
}): ReputationData {
  const { datasets } = parts;
  const loaded = reputationDatasetNames.filter((name) => datasets[name] !== undefined);
  const providers = [...(datasets.cloud_ranges ?? new Map<string, AddressSet>())].sort(([a], [b]) =>
    a < b ? -1 : 1,
  );
  const hosting = datasets.hosting_asns;
  const vpn = datasets.vpn_asns;
  const asnEntry = (list: AsnList | undefined, asn: number): AsnEntry | null => {
    const name = list?.get(asn);
    return name === undefined ? null : { asn, name };
  };
  return {
    dir: parts.dir,
    datasets,
    versions: Object.freeze({ ...parts.versions }),
    counts: Object.freeze(countsOf(datasets)),
    loaded: Object.freeze(loaded),
    missing: Object.freeze([...parts.missing]),
    match: (ip) => match(datasets, providers, ip),
    hostingAsn: (asn) => asnEntry(hosting, asn),
    vpnAsn: (asn) => asnEntry(vpn, asn),
  };
}

function match(
  datasets: ReputationDatasets,
  providers: readonly (readonly [string, AddressSet])[],
  ip: string,
): AddressMatch {
  // Plain loops, no closure per call: this runs once per reputation lookup, tens of thousands a second.
  let v4 = parseIpv4(ip);
  if (v4 < 0) {
    if (!parseIpv6(ip)) throw new TypeError(`not an IP address: ${JSON.stringify(ip)}`);
    // IPv4-mapped (::ffff:0:0/96): the lists keep those addresses under IPv4.
    if (ipv6Words[0] === 0 && ipv6Words[1] === 0 && ipv6Words[2] === 0xffff) v4 = ipv6Words[3] as number;
  }
  const { tor_exits: tor, datacenter_ranges: datacenter, vpn_ranges: vpn } = datasets;
  if (v4 >= 0) {
    let cloudProvider: string | null = null;
    for (const [name, set] of providers) {
      if (hasV4(set, v4)) {
        cloudProvider = name;
        break;
      }
    }
    return {
      torExit: tor !== undefined && hasV4(tor, v4),
      datacenterRange: datacenter !== undefined && hasV4(datacenter, v4),
      vpnRange: vpn !== undefined && hasV4(vpn, v4),
      cloudProvider,
    };
  }
  const a = ipv6Words[0] as number;
  const b = ipv6Words[1] as number;
  const c = ipv6Words[2] as number;
  const d = ipv6Words[3] as number;
  let cloudProvider: string | null = null;
  for (const [name, set] of providers) {
    if (hasV6(set, a, b, c, d)) {
      cloudProvider = name;
      break;
    }
  }
  return {
    torExit: tor !== undefined && hasV6(tor, a, b, c, d),
    datacenterRange: datacenter !== undefined && hasV6(datacenter, a, b, c, d),
    vpnRange: vpn !== undefined && hasV6(vpn, a, b, c, d),
    cloudProvider,
  };
}
