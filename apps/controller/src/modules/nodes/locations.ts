import { isOnline, type NodeState } from "./directory.js";

/**
 * Location selectors (issue #30 item 3): strings that name where a probe runs from, each a term or several
 * joined by `+` (all must match): a country (two-letter code or English name: `DE`, `germany`,
 * `united states`), a continent (name: `europe`, `north america`; or the codes that are no country's: `EU`,
 * `OC`, `AN`), a network (`AS13335`, of a node's VANTAGE_NODE_ASN), a region (`eu-central`), a provider
 * (`hetzner`) or a tag (an operator's VANTAGE_NODE_TAGS, or a capability nodes advertise: `ipv6`, `icmp`). Case, spaces, `-` and `_` do not matter. A term is read in that order, so a country
 * code wins over a region of the same name. docs/node-selection.md.
 */

export type SelectorKind = "country" | "continent" | "region" | "provider" | "asn" | "tag";

/** One selector as a request gave it, resolved: every field given must match. */
export interface LocationMatch {
  /** The selector as given (for error messages and the task). */
  text: string;
  country?: string | undefined;
  continent?: string | undefined;
  /** Lower case. */
  region?: string | undefined;
  provider?: string | undefined;
  /** The network a node must be in (its VANTAGE_NODE_ASN). */
  asn?: number | undefined;
  /** Tags a node must all have (an operator tag or a capability), lower case, sorted. */
  tags: string[];
}

const continentCountries: Record<string, string> = {
  AF: "DZ AO BJ BW BF BI CV CM CF TD KM CG CD CI DJ EG GQ ER SZ ET GA GM GH GN GW KE LS LR LY MG MW ML MR MU YT MA MZ NA NE NG RE RW SH ST SN SC SL SO ZA SS SD TZ TG TN UG EH ZM ZW",
  AN: "AQ BV GS HM TF",
  AS: "AF AM AZ BH BD BT BN KH CN CY GE HK IN ID IR IQ IL JP JO KZ KW KG LA LB MO MY MV MN MM NP KP OM PK PS PH QA SA SG KR LK SY TW TJ TH TL TR TM AE UZ VN YE IO CC CX",
  EU: "AX AL AD AT BY BE BA BG HR CZ DK EE FO FI FR DE GI GR GG VA HU IS IE IM IT JE XK LV LI LT LU MT MD MC ME NL MK NO PL PT RO RU SM RS SK SI ES SJ SE CH UA GB",
  NA: "AI AG AW BS BB BZ BM BQ VG CA KY CR CU CW DM DO SV GL GD GP GT HT HN JM MQ MX MS NI PA PR BL KN LC MF PM VC SX TT TC US VI UM",
  OC: "AS AU CK FJ PF GU KI MH FM NR NC NZ NU NF MP PW PG PN WS SB TK TO TV VU WF",
  SA: "AR BO BR CL CO EC FK GF GY PY PE SR UY VE",
};

const continentNames: Record<string, string> = {
  AF: "Africa",
  AN: "Antarctica",
  AS: "Asia",
  EU: "Europe",
  NA: "North America",
  OC: "Oceania",
  SA: "South America",
};

/** A term as compared: lower case, accents, spaces, `-`, `_` and `.` dropped. */
export const normalTerm = (s: string) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[\s_.'-]+/g, "");

/** Country code → continent code. */
export const continentOf = new Map<string, string>();
for (const [continent, codes] of Object.entries(continentCountries))
  for (const c of codes.split(" ")) continentOf.set(c, continent);

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" });
  } catch {
    return undefined;
  }
})();

/** A country's English name (the code when none is known). */
export function countryName(code: string): string {
  try {
    return regionNames?.of(code) ?? code;
  } catch {
    return code;
  }
}

/** Normalised country name (and a few common aliases) → code. */
const countryByName = new Map<string, string>([
  ["usa", "US"],
  ["america", "US"],
  ["uk", "GB"],
  ["britain", "GB"],
  ["greatbritain", "GB"],
  ["england", "GB"],
  ["turkey", "TR"],
  ["czechrepublic", "CZ"],
  ["holland", "NL"],
  ["southkorea", "KR"],
  ["korea", "KR"],
]);
for (const code of continentOf.keys()) countryByName.set(normalTerm(countryName(code)), code);

const continentByName = new Map<string, string>([
  ["eu", "EU"],
  ["oc", "OC"],
  ["an", "AN"],
]);
for (const [code, name] of Object.entries(continentNames)) continentByName.set(normalTerm(name), code);

/** What the known nodes have: regions, providers and capabilities (normalised → as the nodes spell them). */
export interface Vocabulary {
  /** Networks of known nodes. */
  asns: Set<number>;
  /** Country codes of known nodes (besides ISO's: `ZZ`, the embedded agent's "unknown"). */
  countries: Set<string>;
  regions: Map<string, string>;
  providers: Map<string, string>;
  tags: Map<string, string>;
}

const vocabularies = new WeakMap<readonly NodeState[], Vocabulary>();

/** The vocabulary of a directory snapshot (kept with it: one pass per snapshot that selectors meet). */
export function vocabularyOf(snapshot: readonly NodeState[]): Vocabulary {
  let v = vocabularies.get(snapshot);
  if (v) return v;
  v = { asns: new Set(), countries: new Set(), regions: new Map(), providers: new Map(), tags: new Map() };
  for (const n of snapshot) {
    v.countries.add(n.country);
    v.regions.set(normalTerm(n.region), n.region);
    v.providers.set(normalTerm(n.provider), n.provider);
    for (const c of n.capabilities) v.tags.set(normalTerm(c), c);
    for (const t of n.tags ?? []) v.tags.set(normalTerm(t), t);
    if (n.asn !== undefined) v.asns.add(n.asn);
  }
  vocabularies.set(snapshot, v);
  return v;
}

/** Longest selector string, and most `+` terms in one. */
export const MAX_SELECTOR_LENGTH = 200;
export const MAX_SELECTOR_TERMS = 8;

/**
 * A selector string resolved against the vocabulary, or the first term nothing knows (the caller answers
 * 400 naming it).
 */
export function parseSelector(text: string, vocabulary: Vocabulary): LocationMatch | { unknown: string } {
  const m: LocationMatch = { text, tags: [] };
  for (const raw of text.split("+")) {
    const term = raw.trim();
    const t = normalTerm(term);
    if (t === "") return { unknown: term };
    const upper = t.toUpperCase();
    const as = /^as(\d{1,10})$/.exec(t);
    if (as && vocabulary.asns.has(Number(as[1]))) {
      m.asn = m.asn === undefined || m.asn === Number(as[1]) ? Number(as[1]) : -1;
      continue;
    }
    const isCode = t.length === 2 && (continentOf.has(upper) || vocabulary.countries.has(upper));
    const country = isCode ? upper : countryByName.get(t);
    const continent = country === undefined ? continentByName.get(t) : undefined;
    if (country !== undefined) m.country = merge(m.country, country);
    else if (continent !== undefined) m.continent = merge(m.continent, continent);
    else if (vocabulary.regions.has(t)) m.region = merge(m.region, t);
    else if (vocabulary.providers.has(t)) m.provider = merge(m.provider, t);
    else if (vocabulary.tags.has(t)) m.tags.push(t);
    else return { unknown: term };
  }
  m.tags = [...new Set(m.tags)].sort();
  return m;
}

/** Two terms of one kind must both match: different ones match nothing (kept as an impossible value). */
const merge = (had: string | undefined, next: string) =>
  had === undefined || had === next ? next : "\u0000none";

/** Whether a place (a node's, or a group's of nodes sharing it) matches the selector's place terms. */
export function matchesPlace(m: LocationMatch, country: string, region: string, provider: string): boolean {
  if (m.country !== undefined && m.country !== country) return false;
  if (m.continent !== undefined && continentOf.get(country) !== m.continent) return false;
  if (m.region !== undefined && normalTerm(region) !== m.region) return false;
  if (m.provider !== undefined && normalTerm(provider) !== m.provider) return false;
  return true;
}

/** Whether a node is in the selector's network and has every tag of it (its own tags, or capabilities). */
export function hasTags(m: LocationMatch, node: NodeState): boolean {
  if (m.asn !== undefined && node.asn !== m.asn) return false;
  for (const t of m.tags) {
    const has = (list: readonly string[] | undefined) => list?.some((c) => normalTerm(c) === t) ?? false;
    if (!has(node.tags) && !has(node.capabilities)) return false;
  }
  return true;
}

export interface SelectorInfo {
  selector: string;
  kind: SelectorKind;
  name: string;
  /** Known nodes it matches, and how many of them are online. */
  nodes: number;
  online: number;
}

/** Every selector the known nodes answer to, with counts, by kind then selector. */
export function selectorsOf(
  snapshot: readonly NodeState[],
  offlineAfterMs: number,
  now = Date.now(),
): SelectorInfo[] {
  const out = new Map<string, SelectorInfo>();
  const count = (kind: SelectorKind, selector: string, name: string, online: boolean) => {
    const key = `${kind}\u0000${selector}`;
    let s = out.get(key);
    if (!s) {
      s = { selector, kind, name, nodes: 0, online: 0 };
      out.set(key, s);
    }
    s.nodes++;
    if (online) s.online++;
  };
  for (const n of snapshot) {
    const on = isOnline(n, offlineAfterMs, now);
    count("country", n.country, countryName(n.country), on);
    const continent = continentOf.get(n.country);
    if (continent)
      count(
        "continent",
        continentNames[continent]!.toLowerCase().replace(" ", "-"),
        continentNames[continent]!,
        on,
      );
    count("region", n.region, n.region, on);
    count("provider", n.provider, n.provider, on);
    if (n.asn !== undefined) count("asn", `AS${n.asn}`, `AS${n.asn}`, on);
    for (const c of new Set([...(n.tags ?? []), ...n.capabilities])) count("tag", c, c, on);
  }
  const order: SelectorKind[] = ["continent", "country", "region", "provider", "asn", "tag"];
  return [...out.values()].sort(
    (a, b) =>
      order.indexOf(a.kind) - order.indexOf(b.kind) ||
      (a.selector < b.selector ? -1 : a.selector > b.selector ? 1 : 0),
  );
}
