import { createSocket, type Socket } from "node:dgram";
import * as dnsPacket from "dns-packet";

/**
 * Tiny authoritative servers for `trace` tests (no Debian authoritative server needed): each listens on
 * UDP port 53 of its own address, answers for its zone with AA set, and refers names below a delegated
 * child zone to the child's servers (NS in authority, glue in additional), without AA, as BIND and NSD do.
 * Meant to run inside a test's network namespace (port 53 on TEST-NET addresses added to its `lo`).
 */
export interface AuthorityConfig {
  address: string;
  zone: string;
  /** Child zones and their servers (name and glue address). */
  /** `glue: false`: the referral names the servers only (their names are in another zone). */
  delegations?: { zone: string; ns: { name: string; address: string }[]; glue?: boolean }[];
  records?: dnsPacket.Answer[];
}

const bare = (name: string) => name.replace(/\.$/, "").toLowerCase();
const under = (name: string, zone: string) => zone === "" || name === zone || name.endsWith(`.${zone}`);

export function authorityAnswer(config: AuthorityConfig, query: dnsPacket.DecodedPacket): Buffer {
  const q = query.questions?.[0];
  const name = bare(q?.name ?? "");
  const base = { type: "response" as const, id: query.id ?? 0, questions: query.questions ?? [] };
  const delegation = config.delegations?.find((d) => under(name, bare(d.zone)));
  if (delegation) {
    return dnsPacket.encode({
      ...base,
      flags: 0,
      authorities: delegation.ns.map((ns) => ({
        type: "NS" as const,
        name: bare(delegation.zone),
        ttl: 172800,
        data: ns.name,
      })),
      additionals: (delegation.glue === false ? [] : delegation.ns).map((ns) => ({
        type: (ns.address.includes(":") ? "AAAA" : "A") as "A",
        name: ns.name,
        ttl: 172800,
        data: ns.address,
      })),
    });
  }
  const records = config.records ?? [];
  const matches = records.filter((r) => bare(r.name) === name && r.type === q?.type);
  const known = records.some((r) => bare(r.name) === name);
  return dnsPacket.encode({
    ...base,
    flags: dnsPacket.AUTHORITATIVE_ANSWER | (known || !under(name, bare(config.zone)) ? 0 : 3),
    answers: matches,
  });
}

/** Starts one UDP server per config; resolves once all listen. Each counts the queries it got. */
export async function startAuthorities(
  configs: AuthorityConfig[],
): Promise<{ seen: Map<string, number>; close(): void }> {
  const sockets: Socket[] = [];
  const seen = new Map<string, number>();
  for (const config of configs) {
    const socket = createSocket(config.address.includes(":") ? "udp6" : "udp4");
    socket.on("message", (msg, rinfo) => {
      let query: dnsPacket.DecodedPacket;
      try {
        query = dnsPacket.decode(msg);
      } catch {
        return;
      }
      seen.set(config.address, (seen.get(config.address) ?? 0) + 1);
      socket.send(authorityAnswer(config, query), rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(53, config.address, () => resolve());
    });
    sockets.push(socket);
  }
  return {
    seen,
    close: () => {
      for (const s of sockets) s.close();
    },
  };
}
