import { type Lookup, LookupError } from "../types.js";
import { formatIpv4, ipv6Words } from "./address.js";
import { type IpDataSource, type IpResult, ipInputSchema } from "./schema.js";
import { CLASS_LOOKUP_V4, classifyParsed, parsedAddress, reservedCategories } from "./special-range.js";

type IpAttribution = ReturnType<IpDataSource["find"]>;

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const countryNames = new Map<string, string | null>();

/** English name of an ISO 3166-1 code; null for codes ICU does not know (it echoes those back). */
export function countryName(code: string): string | null {
  let name = countryNames.get(code);
  if (name === undefined) {
    const shown = regionNames.of(code);
    name = shown && shown !== code ? shown : null;
    countryNames.set(code, name);
  }
  return name;
}

/**
 * Country, AS number and AS organisation of an address, from the IP data in the context (ctx.ipData: an
 * IpData or IpDataHolder from ./database.js). Private, loopback, documentation and other special addresses
 * are answered `reserved` from the target guard's table without touching the data; the IPv6 forms of an
 * IPv4 address (::ffff:8.8.8.8, NAT64) answer for that IPv4 address. Credit the data: IP_DATA_ATTRIBUTION.
 */
export const ipLookup: Lookup<"ip"> = {
  kind: "ip",
  inputSchema: ipInputSchema,
  // Not `async`: the answer is ready synchronously, and one promise is all a caller pays for.
  run: (input, ctx) => {
    try {
      return Promise.resolve(answerIp(input.ip, ctx.ipData));
    } catch (error) {
      return Promise.reject(error);
    }
  },
};

/**
 * ipLookup's answer, synchronously. The address is parsed once (classifyParsed), and the data reads that
 * parse (findV4/findV6) instead of parsing the text again. Version and answer are read in one synchronous
 * stretch: a reload cannot swap the data in between.
 */
export function answerIp(ip: string, data: IpDataSource | undefined): IpResult {
  if (!data) throw new LookupError("unavailable", "the IP data is not loaded");
  const code = classifyParsed(ip);
  if (code >= 0) return reservedAnswer(ip, reservedCategories[code] ?? "invalid", data.version);
  let hit: IpAttribution;
  if (code === CLASS_LOOKUP_V4) {
    const v4 = parsedAddress.embedded;
    hit = data.findV4 ? data.findV4(v4) : data.find(formatIpv4(v4));
  } else if (!parsedAddress.bare || !data.findV4 || !data.findV6) {
    hit = data.find(ip);
  } else if (parsedAddress.v4 >= 0) {
    hit = data.findV4(parsedAddress.v4);
  } else {
    hit = data.findV6(
      ipv6Words[0] as number,
      ipv6Words[1] as number,
      ipv6Words[2] as number,
      ipv6Words[3] as number,
      ip,
    );
  }
  // One literal per branch (no spread of a template): this runs a million times a second.
  return {
    ip,
    country: hit.country,
    country_name: hit.country === null ? null : countryName(hit.country),
    isp: hit.org,
    // `AS<n>` made afresh: a short string is cheaper to make than to look up among ~80,000 kept ones.
    asn: hit.asn === null ? null : `AS${hit.asn}`,
    reserved: false,
    range: null,
    data_version: data.version,
  };
}

function reservedAnswer(ip: string, range: string, version: string): IpResult {
  return {
    ip,
    country: null,
    country_name: null,
    isp: null,
    asn: null,
    reserved: true,
    range,
    data_version: version,
  };
}
