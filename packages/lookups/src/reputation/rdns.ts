import { canonicalIp, parseIpv4 } from "../ip/address.js";
import { type Budget, queryResolver, type Resolver } from "../net/resolver.js";
import { failureReason, ptrName } from "./dns-check.js";

/** What a PTR name suggests; each a short text saying what matched, or null. */
export interface PtrHints {
  /** A hosting word (`vps`, `server`…) or a provider's domain (`amazonaws.com`…). */
  hosting: string | null;
  /** A dynamic/access-network word (`dsl`, `pool`…), or "the address in the name" (with no hosting hint). */
  residential: string | null;
  /** A VPN, proxy or Tor exit word, with the tag it stands for (low confidence: the name is the owner's). */
  vpnProxy: { keyword: string; tag: "vpn" | "proxy" | "tor" } | null;
}

export type RdnsOutcome =
  | { status: "no_ptr" }
  | {
      status: "answered";
      /** The PTR name, lower-case, without the trailing dot: the forward-confirmed one when several. */
      name: string;
      /** A/AAAA of the name include the address; null when that lookup failed (`forwardProblem`). */
      confirmed: boolean | null;
      forwardProblem: string | null;
      hints: PtrHints;
    }
  | { status: "unavailable"; reason: string };

/** Whole words (a run of letters, trailing digits dropped: `vps12` is `vps`). */
const HOSTING_WORDS = new Set([
  "vps",
  "server",
  "servers",
  "srv",
  "host",
  "hosted",
  "hosting",
  "cloud",
  "dedi",
  "dedicated",
  "colo",
  "colocation",
  "datacenter",
]);

/** Domains under which providers name their machines (their default PTRs). */
const HOSTING_DOMAINS = [
  "amazonaws.com",
  "googleusercontent.com",
  "cloudapp.azure.com",
  "cloudapp.net",
  "linode.com",
  "linodeusercontent.com",
  "vultrusercontent.com",
  "your-server.de",
  "hetzner.cloud",
  "ovh.net",
  "contaboserver.net",
  "leaseweb.net",
];

/** Word starts: `dyn` covers `dynamic` and `dynip`, `dsl` the `dsl-pool`… of access networks. */
const RESIDENTIAL_PREFIXES = [
  "dyn",
  "dhcp",
  "pool",
  "dsl",
  "adsl",
  "vdsl",
  "xdsl",
  "cable",
  "ppp",
  "ftth",
  "fttx",
  "broadband",
  "dialup",
  "cpe",
  "residential",
];

/**
 * The hints in a PTR name for `ip`. Words are the name's runs of letters and digits (`vps-12.example` has
 * `vps`, `12`, `example`), compared without trailing digits.
 */
export function classifyPtrName(name: string, ip: string): PtrHints {
  const lower = name.toLowerCase().replace(/\.$/, "");
  const words = lower.split(/[^a-z0-9]+/).map((w) => w.replace(/[0-9]+$/, ""));
  const domain = HOSTING_DOMAINS.find((d) => lower === d || lower.endsWith(`.${d}`));
  const hostingWord = words.find((w) => HOSTING_WORDS.has(w) || (w.startsWith("vps") && w.length > 3));
  const hosting = domain ?? (hostingWord ? `"${hostingWord}"` : null);
  const residentialWord = words.find((w) => RESIDENTIAL_PREFIXES.some((p) => w.startsWith(p)));
  let residential = residentialWord ? `"${residentialWord}"` : null;
  if (residential === null && hosting === null && embedsAddress(lower, ip))
    residential = "the address in the name";
  return { hosting, residential, vpnProxy: vpnProxyWord(lower, words) };
}

function vpnProxyWord(lower: string, words: string[]): PtrHints["vpnProxy"] {
  const tor = /tor-?exit|exit-?node/.exec(lower)?.[0] ?? (words.includes("exit") ? "exit" : null);
  if (tor) return { keyword: tor, tag: "tor" };
  const vpn = words.find((w) => w.includes("vpn"));
  if (vpn) return { keyword: vpn, tag: "vpn" };
  const proxy = words.find((w) => w.includes("proxy"));
  if (proxy) return { keyword: proxy, tag: "proxy" };
  return null;
}

/** The four octets in the name, in either order, dotted or dashed or zero-padded (`c-73-15-22-1.isp`). */
function embedsAddress(name: string, ip: string): boolean {
  const n = parseIpv4(ip);
  if (n < 0) return false;
  const octets = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const run = (parts: number[]) => parts.map((o) => `0*${o}`).join("[-._]");
  const pattern = new RegExp(`(?:^|[^0-9])(?:${run(octets)}|${run([...octets].reverse())})(?:[^0-9]|$)`);
  const padded = octets.map((o) => String(o).padStart(3, "0")).join("");
  return pattern.test(name) || name.includes(padded);
}

/** PTR names tried for forward confirmation, at most. */
const MAX_NAMES = 4;

/**
 * The PTR of `ip` and its forward confirmation (the name's A or AAAA records include `ip`). NXDOMAIN or an
 * empty answer is `no_ptr`; a PTR query that times out, fails or is answered SERVFAIL/REFUSED is
 * `unavailable`: never scored as a missing PTR.
 */
export async function checkRdns(ip: string, resolver: Resolver, budget: Budget): Promise<RdnsOutcome> {
  let names: string[];
  try {
    const result = await queryResolver(ptrName(ip), "PTR", resolver, budget);
    if (result.rcode !== "NOERROR" && result.rcode !== "NXDOMAIN") {
      return { status: "unavailable", reason: `${resolver.label} answered ${result.rcode} to the PTR query` };
    }
    names = result.answers
      .filter((a) => a.type === "PTR")
      .map((a) => a.value.toLowerCase().replace(/\.$/, ""))
      .filter((n) => n !== "");
  } catch (error) {
    return { status: "unavailable", reason: failureReason(error) };
  }
  if (names.length === 0) return { status: "no_ptr" };
  const family = parseIpv4(ip) >= 0 ? "A" : "AAAA";
  const checks = await Promise.all(
    names.slice(0, MAX_NAMES).map((name) => confirm(name, family, ip, resolver, budget)),
  );
  const confirmedAt = checks.findIndex((c) => c.confirmed === true);
  const chosen = Math.max(confirmedAt, 0);
  const name = names[chosen] as string;
  const check = checks[chosen] as Confirmation;
  return { status: "answered", name, ...check, hints: classifyPtrName(name, ip) };
}

interface Confirmation {
  confirmed: boolean | null;
  forwardProblem: string | null;
}

async function confirm(
  name: string,
  type: "A" | "AAAA",
  ip: string,
  resolver: Resolver,
  budget: Budget,
): Promise<Confirmation> {
  try {
    const result = await queryResolver(name, type, resolver, budget);
    if (result.rcode !== "NOERROR" && result.rcode !== "NXDOMAIN") {
      return {
        confirmed: null,
        forwardProblem: `${resolver.label} answered ${result.rcode} to ${name} ${type}`,
      };
    }
    const confirmed = result.answers.some((a) => {
      if (a.type !== type) return false;
      const parsed = canonicalIp(a.value);
      return parsed.ok && parsed.ip === ip;
    });
    return { confirmed, forwardProblem: null };
  } catch (error) {
    return { confirmed: null, forwardProblem: `${name} ${type}: ${failureReason(error)}` };
  }
}
