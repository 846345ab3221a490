import { createSocket } from "node:dgram";
import { type DnsResponder, type DnsTestServer, startDnsServer } from "@vantage/probes/testing/dns-server";
import * as dnsPacket from "dns-packet";

/*
 * A loopback DNS server for the reputation tests: DNSBL zones, PTR and forward records from a table, on
 * 127.0.0.1 (and ::1) at a random port, with the dns probe's test server doing the sockets.
 */

export type FixtureRecord = { name: string; type: "A" | "AAAA" | "PTR"; data: string };

export interface FixtureZoneOptions {
  /** Names (or zones, matched as suffixes) answered SERVFAIL. */
  servfail?: string[];
  /** Names (or zones, matched as suffixes) never answered. */
  silent?: string[];
}

const under = (name: string, zones: readonly string[]) =>
  zones.some((z) => name === z || name.endsWith(`.${z}`));

/** Answers from `records`: NXDOMAIN for an unknown name, an empty NOERROR for a known name of another type. */
export function tableResponder(
  records: readonly FixtureRecord[],
  options: FixtureZoneOptions = {},
): DnsResponder {
  return (query) => {
    const q = query.questions?.[0];
    const name = q?.name.toLowerCase() ?? "";
    if (under(name, options.silent ?? [])) return null;
    const rcode = under(name, options.servfail ?? []) ? 2 : records.some((r) => r.name === name) ? 0 : 3;
    const answers = rcode === 0 ? records.filter((r) => r.name === name && r.type === q?.type) : [];
    return dnsPacket.encode({
      type: "response",
      id: query.id ?? 0,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
      questions: query.questions ?? [],
      answers: answers.map(
        (r) => ({ type: r.type, name: r.name, ttl: 60, data: r.data }) as dnsPacket.Answer,
      ),
    });
  };
}

export async function startFixtureDns(
  records: readonly FixtureRecord[],
  options: FixtureZoneOptions = {},
): Promise<DnsTestServer> {
  return startDnsServer(tableResponder(records, options));
}

/** A UDP port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

export { type DnsTestServer, startDnsServer };
