import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server } from "node:net";
import * as dnsPacket from "dns-packet";

/** The zone the test server answers for; `big.example.test` TXT is truncated over UDP to force TCP. */
const zone: dnsPacket.Answer[] = [
  { type: "A", name: "www.example.test", ttl: 300, data: "192.0.2.10" },
  { type: "AAAA", name: "www.example.test", ttl: 300, data: "2001:db8::10" },
  { type: "MX", name: "example.test", ttl: 3600, data: { preference: 10, exchange: "mail.example.test" } },
  { type: "TXT", name: "example.test", ttl: 60, data: ["v=spf1 -all", 'say "hi"'] },
  { type: "NS", name: "example.test", ttl: 86400, data: "ns1.example.test" },
  { type: "CNAME", name: "alias.example.test", ttl: 120, data: "www.example.test" },
  {
    type: "SOA",
    name: "example.test",
    ttl: 3600,
    data: {
      mname: "ns1.example.test",
      rname: "hostmaster.example.test",
      serial: 2026112201,
      refresh: 7200,
      retry: 900,
      expire: 1209600,
      minimum: 300,
    },
  },
  {
    type: "TXT",
    name: "big.example.test",
    ttl: 60,
    data: ["x".repeat(200), "y".repeat(200), "z".repeat(200)],
  },
];

/**
 * The reply to one query: a DNS message (framed with its length over TCP), `{ raw }` bytes written as they are
 * (TCP framing included), or null for silence. Tests pass their own to send malformed or stray replies.
 */
export type DnsResponder = (
  query: dnsPacket.DecodedPacket,
  overTcp: boolean,
) => Buffer | { raw: Buffer } | null;

/** Answers from the zone above. */
export function zoneAnswer(query: dnsPacket.DecodedPacket, overTcp: boolean): Buffer {
  const q = query.questions?.[0];
  const name = q?.name.toLowerCase() ?? "";
  const matches = zone.filter((r) => r.name === name && r.type === q?.type);
  const known = zone.some((r) => r.name === name);
  const truncate = name === "big.example.test" && !overTcp;
  return dnsPacket.encode({
    type: "response",
    id: query.id ?? 0,
    flags:
      dnsPacket.RECURSION_DESIRED |
      dnsPacket.RECURSION_AVAILABLE |
      (truncate ? dnsPacket.TRUNCATED_RESPONSE : 0) |
      (known ? 0 : 3), // rcode 3 = NXDOMAIN
    questions: query.questions ?? [],
    answers: truncate ? [] : matches,
  });
}

export interface DnsTestServer {
  port: number;
  /** Queries seen per protocol, to prove the TCP retry happened. */
  seen: { udp: number; tcp: number };
  close: () => Promise<void>;
}

/** UDP and TCP on the same random port, on 127.0.0.1 and ::1. */
export async function startDnsServer(respond: DnsResponder = zoneAnswer): Promise<DnsTestServer> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const seen = { udp: 0, tcp: 0 };
    const udp4 = await bindUdp("udp4", "127.0.0.1", 0, seen, respond);
    const port = udp4.address().port;
    try {
      const udp6 = await bindUdp("udp6", "::1", port, seen, respond);
      const tcp4 = await listenTcp("127.0.0.1", port, seen, respond);
      const tcp6 = await listenTcp("::1", port, seen, respond);
      const close = async () => {
        for (const s of [udp4, udp6]) s.close();
        await Promise.all([tcp4, tcp6].map((s) => new Promise((r) => s.close(r))));
      };
      return { port, seen, close };
    } catch {
      udp4.close(); // the port was taken for another protocol or family: try another one
    }
  }
  throw new Error("no free port for the test DNS server");
}

const wire = (reply: Buffer | { raw: Buffer }): Buffer => (Buffer.isBuffer(reply) ? reply : reply.raw);

function bindUdp(
  type: "udp4" | "udp6",
  host: string,
  port: number,
  seen: { udp: number },
  respond: DnsResponder,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(type);
    socket.once("error", reject);
    socket.on("message", (msg, rinfo) => {
      seen.udp++;
      const reply = respond(dnsPacket.decode(msg), false);
      if (reply) socket.send(wire(reply), rinfo.port, rinfo.address);
    });
    socket.bind(port, host, () => resolve(socket));
  });
}

function listenTcp(
  host: string,
  port: number,
  seen: { tcp: number },
  respond: DnsResponder,
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((conn) => {
      let buf = Buffer.alloc(0);
      conn.on("data", (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        if (buf.length < 2 || buf.length < buf.readUInt16BE(0) + 2) return;
        seen.tcp++;
        const reply = respond(dnsPacket.decode(buf.subarray(2, buf.readUInt16BE(0) + 2)), true);
        if (reply === null) return;
        if (Buffer.isBuffer(reply)) {
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(reply.length);
          conn.end(Buffer.concat([prefix, reply]));
        } else {
          conn.end(reply.raw);
        }
      });
      conn.on("error", () => {});
    });
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

/**
 * A resolver that misbehaves on purpose, by the queried name's first label (the hostile-network tests name
 * it in a namespace's resolv.conf, so every lookup of the service there meets it):
 * `refused.*` REFUSED; `silent.*` no answer; `garbage.*` the query's id followed by bytes that are no DNS
 * message; `truncated.*` the TC bit and no records (serve it without TCP: the retry finds nothing);
 * `wrongid.*` a well-formed answer under another id; `v6only.*` AAAA 2001:db8::1 and no A. Anything else
 * is NXDOMAIN.
 */
export function hostileAnswer(query: dnsPacket.DecodedPacket): Buffer | { raw: Buffer } | null {
  const q = query.questions?.[0];
  const name = q?.name.toLowerCase() ?? "";
  const mode = name.split(".")[0];
  const id = query.id ?? 0;
  const reply = (flags: number, answers: dnsPacket.Answer[] = [], replyId = id) =>
    dnsPacket.encode({
      type: "response",
      id: replyId,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | flags,
      questions: query.questions ?? [],
      answers,
    });
  switch (mode) {
    case "refused":
      return reply(5); // rcode 5 = REFUSED
    case "silent":
      return null;
    case "garbage": {
      const raw = Buffer.from([0, 0, 0xff, 0xff, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x07, 0x41]);
      raw.writeUInt16BE(id, 0);
      return { raw };
    }
    case "truncated":
      return reply(dnsPacket.TRUNCATED_RESPONSE);
    case "wrongid":
      return reply(0, [{ type: "A", name, ttl: 60, data: "192.0.2.1" }], (id + 1) & 0xffff);
    case "v6only":
      return reply(0, q?.type === "AAAA" ? [{ type: "AAAA", name, ttl: 60, data: "2001:db8::1" }] : []);
    default:
      return reply(3); // NXDOMAIN
  }
}

/** `respond` over UDP only (no TCP: a truncated answer's retry is refused), on one address and port. */
export async function startUdpDnsServer(
  host: string,
  port: number,
  respond: DnsResponder,
): Promise<{ port: number; seen: { udp: number }; close: () => void }> {
  const seen = { udp: 0 };
  const socket = await bindUdp(host.includes(":") ? "udp6" : "udp4", host, port, seen, respond);
  return { port: socket.address().port, seen, close: () => socket.close() };
}
