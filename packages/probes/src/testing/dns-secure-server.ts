import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import * as dnsPacket from "dns-packet";
import { zoneAnswer } from "./dns-server.js";
import { selfSignedCert } from "./tls-cert.js";

/** What a query asked for, as the server saw it: the flags and options the probe sets. */
export interface SeenQuery {
  via: "tls" | "https-post" | "https-get";
  cd: boolean;
  rd: boolean;
  dnssecOk: boolean;
  nsid: boolean;
}

/**
 * The test zone (testing/dns-server.ts) over DNS-over-TLS and DNS-over-HTTPS (`/dns-query`, POST and GET),
 * on 127.0.0.1 with a self-signed certificate. It answers NSID `lab-ns1` when asked, sets CD when the
 * query did, and records every query's flags in `seen`.
 */
export interface SecureDnsServers {
  dotPort: number;
  dohPort: number;
  seen: SeenQuery[];
  close(): Promise<void>;
}

function answer(msg: Buffer, via: SeenQuery["via"], seen: SeenQuery[]): Buffer {
  const query = dnsPacket.decode(msg);
  const opt = (query.additionals ?? []).find((r) => r.type === "OPT") as
    | { flags?: number; options?: { code: number }[] }
    | undefined;
  const nsid = (opt?.options ?? []).some((o) => o.code === 3);
  const cd = query.flag_cd === true;
  seen.push({
    via,
    cd,
    rd: query.flag_rd === true,
    dnssecOk: ((opt?.flags ?? 0) & dnsPacket.DNSSEC_OK) !== 0,
    nsid,
  });
  const plain = dnsPacket.decode(zoneAnswer(query, true));
  return dnsPacket.encode({
    ...plain,
    type: "response",
    flags: (plain.flags ?? 0) | (cd ? dnsPacket.CHECKING_DISABLED : 0),
    additionals: [
      {
        type: "OPT",
        name: ".",
        udpPayloadSize: 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: 0,
        flag_do: false,
        options: nsid ? [{ code: 3, data: Buffer.from("lab-ns1") } as unknown as dnsPacket.PacketOpt] : [],
      },
    ],
  });
}

export async function startSecureDns(): Promise<SecureDnsServers> {
  const { key, cert } = selfSignedCert();
  const seen: SeenQuery[] = [];
  const dot: TlsServer = createTlsServer({ key, cert }, (conn) => {
    let buf = Buffer.alloc(0);
    conn.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 2 || buf.length < buf.readUInt16BE(0) + 2) return;
      const reply = answer(buf.subarray(2, buf.readUInt16BE(0) + 2), "tls", seen);
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(reply.length);
      conn.end(Buffer.concat([prefix, reply]));
    });
    conn.on("error", () => {});
  });
  const doh: HttpsServer = createHttpsServer({ key, cert }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://localhost");
    const reply = (msg: Buffer, via: SeenQuery["via"]) => {
      const body = answer(msg, via, seen);
      res.writeHead(200, { "content-type": "application/dns-message", "content-length": body.length });
      res.end(body);
    };
    if (url.pathname !== "/dns-query") {
      res.writeHead(404).end();
    } else if (req.method === "GET") {
      reply(Buffer.from(url.searchParams.get("dns") ?? "", "base64url"), "https-get");
    } else {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => reply(Buffer.concat(chunks), "https-post"));
    }
  });
  await new Promise<void>((r) => dot.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => doh.listen(0, "127.0.0.1", r));
  return {
    dotPort: (dot.address() as AddressInfo).port,
    dohPort: (doh.address() as AddressInfo).port,
    seen,
    close: async () => {
      await Promise.all([new Promise((r) => dot.close(r)), new Promise((r) => doh.close(r))]);
    },
  };
}
