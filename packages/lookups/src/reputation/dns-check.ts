import { ProbeFailure } from "@vantage/probes/dns-query";
import { ipv6Words, parseIpv4, parseIpv6 } from "../ip/address.js";

/*
 * What the DNSBL and reverse-DNS checks share on top of the resolver (net/resolver.ts): the reversed query
 * names, and the text a failed query leaves in `signals_unavailable`.
 */

/** Why a check could not answer, for `signals_unavailable`: the wire client's and the guard's messages. */
export function failureReason(error: unknown): string {
  if (error instanceof ProbeFailure)
    return error.code === "timeout" ? `timeout: ${error.message}` : error.message;
  throw error;
}

/**
 * The labels a reverse-style query puts before its zone: the four octets reversed (`4.3.2.1` for 1.2.3.4)
 * or the 32 nibbles of an IPv6 address reversed, as PTR (in-addr.arpa, ip6.arpa) and DNSBL queries use.
 */
export function reversedLabels(ip: string): string {
  const v4 = parseIpv4(ip);
  if (v4 >= 0) return `${v4 & 255}.${(v4 >>> 8) & 255}.${(v4 >>> 16) & 255}.${v4 >>> 24}`;
  if (!parseIpv6(ip)) throw new TypeError(`not an IP address: ${JSON.stringify(ip)}`);
  const nibbles: string[] = [];
  for (let w = 3; w >= 0; w--) {
    const word = ipv6Words[w] as number;
    for (let shift = 0; shift < 32; shift += 4) nibbles.push(((word >>> shift) & 15).toString(16));
  }
  return nibbles.join(".");
}

/** The PTR query name of an address. */
export function ptrName(ip: string): string {
  return `${reversedLabels(ip)}.${parseIpv4(ip) >= 0 ? "in-addr.arpa" : "ip6.arpa"}`;
}
