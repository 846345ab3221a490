import type { Answer } from "dns-packet";
import { labAddresses } from "../topology.js";

/**
 * The test zone `vantage.test.` served by the lab's DNS server on t1. Every record type the dns probe
 * supports appears, with distinct TTLs so a TTL mix-up shows; `big` is a TXT set far beyond 1232 bytes,
 * so a UDP answer must be truncated and the client must retry over TCP.
 */
export const zoneName = `${labAddresses.dnsZone}.`;
const z = (label: string): string =>
  label === "@" ? labAddresses.dnsZone : `${label}.${labAddresses.dnsZone}`;

const bigTxt: string[] = Array.from(
  { length: 24 },
  (_, i) => `chunk-${String(i).padStart(2, "0")}-${"x".repeat(150)}`,
);

export const zoneRecords: Answer[] = [
  {
    name: z("@"),
    type: "SOA",
    ttl: 3600,
    data: {
      mname: z("ns1"),
      rname: z("hostmaster"),
      serial: 2026112201,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 300,
    },
  },
  { name: z("@"), type: "NS", ttl: 3600, data: z("ns1") },
  { name: z("@"), type: "NS", ttl: 3600, data: z("ns2") },
  { name: z("@"), type: "MX", ttl: 1800, data: { preference: 10, exchange: z("mail") } },
  { name: z("@"), type: "MX", ttl: 1800, data: { preference: 20, exchange: z("mail2") } },
  { name: z("@"), type: "TXT", ttl: 900, data: "v=spf1 -all" },
  { name: z("@"), type: "TXT", ttl: 900, data: ["two strings", "in one record"] },
  { name: z("@"), type: "A", ttl: 600, data: labAddresses.web4 },
  { name: z("ns1"), type: "A", ttl: 3600, data: labAddresses.web4 },
  { name: z("ns2"), type: "AAAA", ttl: 3600, data: labAddresses.web6 },
  { name: z("www"), type: "A", ttl: 300, data: labAddresses.web4 },
  { name: z("www"), type: "AAAA", ttl: 300, data: labAddresses.web6 },
  { name: z("multi"), type: "A", ttl: 60, data: labAddresses.web4 },
  { name: z("multi"), type: "A", ttl: 60, data: labAddresses.lossy4 },
  { name: z("alias"), type: "CNAME", ttl: 120, data: z("www") },
  { name: z("mail"), type: "A", ttl: 1800, data: "192.0.2.25" },
  { name: z("mail2"), type: "A", ttl: 1800, data: "192.0.2.26" },
  { name: z("lossy"), type: "A", ttl: 30, data: labAddresses.lossy4 },
  { name: z("noicmp"), type: "A", ttl: 30, data: labAddresses.noIcmp4 },
  { name: z("blackhole"), type: "A", ttl: 30, data: labAddresses.blackhole4 },
  { name: z("big"), type: "TXT", ttl: 240, data: bigTxt },
];

export interface ZoneAnswer {
  rcode: "NOERROR" | "NXDOMAIN" | "REFUSED";
  answers: Answer[];
  authorities: Answer[];
}

const soa = zoneRecords.find((r) => r.type === "SOA")!;
const same = (a: string, b: string): boolean => a.toLowerCase().replace(/\.$/, "") === b.toLowerCase();

/** Authoritative lookup with in-zone CNAME chasing, NXDOMAIN and NODATA (SOA in authority) as usual. */
export function lookup(name: string, type: string): ZoneAnswer {
  const inZone =
    same(name, labAddresses.dnsZone) ||
    name.toLowerCase().replace(/\.$/, "").endsWith(`.${labAddresses.dnsZone}`);
  if (!inZone) return { rcode: "REFUSED", answers: [], authorities: [] };
  const answers: Answer[] = [];
  let current = name;
  for (let depth = 0; depth < 8; depth++) {
    const atName = zoneRecords.filter((r) => same(current, r.name));
    if (atName.length === 0) {
      return answers.length > 0
        ? { rcode: "NOERROR", answers, authorities: [] }
        : { rcode: "NXDOMAIN", answers, authorities: [soa] };
    }
    const exact = atName.filter((r) => r.type === type);
    if (exact.length > 0) return { rcode: "NOERROR", answers: [...answers, ...exact], authorities: [] };
    const cname = atName.find((r) => r.type === "CNAME");
    if (cname?.type !== "CNAME") return { rcode: "NOERROR", answers, authorities: [soa] };
    answers.push(cname);
    current = cname.data;
  }
  return { rcode: "NOERROR", answers, authorities: [] };
}
