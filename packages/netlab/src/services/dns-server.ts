import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server } from "node:net";
import * as dnsPacket from "dns-packet";
import { lookup } from "./dns-zone.js";

const rcodeNumber = { NOERROR: 0, NXDOMAIN: 3, REFUSED: 5, FORMERR: 1 } as const;

/**
 * Builds the wire answer to one query. Over UDP the answer must fit the client's EDNS buffer (512 bytes
 * without EDNS); if it does not, the reply carries TC and no records, which is what makes a well-behaved
 * client retry over TCP.
 */
export function answer(query: Buffer, transport: "udp" | "tcp"): Buffer {
  let q: dnsPacket.DecodedPacket;
  try {
    q = dnsPacket.decode(query);
  } catch {
    return Buffer.alloc(0);
  }
  const question = q.questions?.[0];
  const opt = q.additionals?.find((a) => a.type === "OPT");
  const additionals: dnsPacket.Answer[] = opt
    ? [
        {
          type: "OPT",
          name: ".",
          udpPayloadSize: 1232,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: [],
        },
      ]
    : [];
  const rd = (q.flags ?? 0) & dnsPacket.RECURSION_DESIRED;
  const base = { type: "response" as const, id: q.id ?? 0, questions: q.questions ?? [], additionals };
  if (!question) {
    return dnsPacket.encode({ ...base, flags: rd | rcodeNumber.FORMERR });
  }
  const found = lookup(question.name, question.type);
  const flags = dnsPacket.AUTHORITATIVE_ANSWER | rd | rcodeNumber[found.rcode];
  const full = dnsPacket.encode({ ...base, flags, answers: found.answers, authorities: found.authorities });
  if (transport === "tcp") return full;
  const limit = opt && opt.type === "OPT" ? Math.max(512, opt.udpPayloadSize) : 512;
  if (full.length <= limit) return full;
  return dnsPacket.encode({ ...base, flags: flags | dnsPacket.TRUNCATED_RESPONSE });
}

export interface DnsServer {
  close(): Promise<void>;
}

/** Serves the zone on UDP and TCP port `port` of `host` (`::` = every address, both families). */
export async function startDnsServer(host: string, port: number): Promise<DnsServer> {
  const udp: Socket = createSocket({ type: "udp6", ipv6Only: false });
  udp.on("message", (msg, rinfo) => {
    const reply = answer(msg, "udp");
    if (reply.length > 0) udp.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve, reject) => {
    udp.once("error", reject);
    udp.bind(port, host, () => resolve());
  });
  const tcp: Server = createServer((sock) => {
    let buf = Buffer.alloc(0);
    sock.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      // TCP DNS frames each message with a two-byte length; a client may pipeline several.
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < 2 + len) break;
        const reply = answer(buf.subarray(2, 2 + len), "tcp");
        buf = buf.subarray(2 + len);
        const head = Buffer.alloc(2);
        head.writeUInt16BE(reply.length);
        sock.write(Buffer.concat([head, reply]));
      }
    });
    sock.on("error", () => sock.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once("error", reject);
    tcp.listen(port, host, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        udp.close();
        tcp.close(() => resolve());
      }),
  };
}
