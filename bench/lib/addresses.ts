/**
 * A deterministic mixed set of public addresses: xorshift over the space, `ipv6Every`-th one IPv6
 * (0 = IPv4 only), first octets of private, loopback, CGNAT and the documentation ranges' /8s skipped.
 */
export function publicAddresses(n: number, ipv6Every = 4): string[] {
  let x = 2463534242;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const out: string[] = [];
  while (out.length < n) {
    if (ipv6Every > 0 && out.length % ipv6Every === ipv6Every - 1) {
      const words = [0x2000 + (next() % 0x1000), next() & 0xffff, next() & 0xffff, next() & 0xffff];
      out.push(`${words.map((w) => w.toString(16)).join(":")}::${(next() & 0xffff).toString(16)}`);
    } else {
      const a = 1 + (next() % 223);
      if (a === 10 || a === 127 || a === 100 || a === 172 || a === 192) continue;
      out.push(`${a}.${next() & 255}.${next() & 255}.${next() & 255}`);
    }
  }
  return out;
}
