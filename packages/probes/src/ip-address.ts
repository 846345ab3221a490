import { isIPv4, isIPv6 } from "node:net";

/** Strips `[...]` around an IPv6 literal and any `%zone` suffix (a zone does not change the range). */
export function bareAddress(host: string): string {
  const unbracketed = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const zone = unbracketed.indexOf("%");
  return zone >= 0 ? unbracketed.slice(0, zone) : unbracketed;
}

/** Dotted quad → unsigned 32-bit number, or null when not an IPv4 literal. */
export function ipv4ToNumber(ip: string): number | null {
  if (!isIPv4(ip)) return null;
  return ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}

export function numberToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/** IPv6 text (any valid form, embedded dotted quad included) → 128-bit bigint, or null when invalid. */
export function ipv6ToBigInt(ip: string): bigint | null {
  if (!isIPv6(ip)) return null;
  let text = ip.toLowerCase();
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = ipv4ToNumber(tail);
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const headParts = head === "" ? [] : head.split(":");
  const restParts = rest === undefined || rest === "" ? [] : rest.split(":");
  const missing = 8 - headParts.length - restParts.length;
  const groups = rest === undefined ? headParts : [...headParts, ...Array(missing).fill("0"), ...restParts];
  if (groups.length !== 8) return null;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** A CIDR prefix match on either family's numeric form. */
export function inPrefix(value: bigint, base: bigint, prefix: number, bits: 32 | 128): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}
