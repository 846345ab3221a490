import { ipv4ToNumber, ipv6ToBigInt } from "./ip-address.js";

/** Compares two IP literals by value: `::1` and `0:0:0:0:0:0:0:1` are the same address. */
export function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  const a4 = ipv4ToNumber(a);
  if (a4 !== null) return a4 === ipv4ToNumber(b);
  const a6 = ipv6ToBigInt(a);
  return a6 !== null && a6 === ipv6ToBigInt(b);
}
