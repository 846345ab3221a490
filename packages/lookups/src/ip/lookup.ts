import { type Lookup, LookupError } from "../types.js";
import { ipInputSchema } from "./schema.js";
import { classifyAddress } from "./special-range.js";

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
  run: async (input, ctx) => {
    const data = ctx.ipData;
    if (!data) throw new LookupError("unavailable", "the IP data is not loaded");
    const verdict = classifyAddress(input.ip);
    // Version and answer are read in one synchronous stretch: a reload cannot swap the data in between.
    // One literal per branch (no spread of a template): this runs a million times a second.
    if ("reserved" in verdict) {
      return {
        ip: input.ip,
        country: null,
        country_name: null,
        isp: null,
        asn: null,
        reserved: true,
        range: verdict.reserved,
        data_version: data.version,
      };
    }
    const hit = data.find(verdict.lookup);
    return {
      ip: input.ip,
      country: hit.country,
      country_name: hit.country === null ? null : countryName(hit.country),
      isp: hit.org,
      asn: hit.asn === null ? null : `AS${hit.asn}`,
      reserved: false,
      range: null,
      data_version: data.version,
    };
  },
};
