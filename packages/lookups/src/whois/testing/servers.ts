import { readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import type { RdapBootstrap } from "../bootstrap.js";

/*
 * Loopback stand-ins for the RDAP and port-43 servers of the whois tests: 127.0.0.1, random ports. Every
 * server a test names is an IP literal, so no resolver is asked and nothing leaves the host.
 */

/** A fixture's text (fixtures/README.md: hand-written in the registries' formats, not recordings). */
export function fixture(name: string, replace: Record<string, string> = {}): string {
  let text = readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8");
  for (const [key, value] of Object.entries(replace)) text = text.replaceAll(`{{${key}}}`, value);
  return text;
}

export interface RdapReply {
  status: number;
  body?: string | object;
  /** Never answer (the socket stays open until the server closes). */
  hang?: boolean;
}

export interface RdapServer {
  port: number;
  /** `http://127.0.0.1:port`, without a trailing slash. */
  url: string;
  /** Request paths in order, with the Accept header seen. */
  seen: { path: string; accept: string | undefined }[];
  close: () => Promise<void>;
}

export async function startRdapServer(route: (path: string) => RdapReply): Promise<RdapServer> {
  const seen: RdapServer["seen"] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? "";
    seen.push({ path, accept: req.headers.accept });
    const reply = route(path);
    if (reply.hang) return;
    const body = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status, { "content-type": "application/rdap+json" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a port-43 server does with one query line: answer text (then close), or hang. */
export type WhoisReply = string | Buffer | { hang: true };

export interface WhoisServer {
  port: number;
  /** `127.0.0.1:port`. */
  address: string;
  /** Query lines received, without the CRLF. */
  seen: string[];
  close: () => Promise<void>;
}

export async function startWhoisServer(answer: (query: string) => WhoisReply): Promise<WhoisServer> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      const end = buffered.indexOf("\r\n");
      if (end < 0) return;
      const query = buffered.slice(0, end);
      seen.push(query);
      const reply = answer(query);
      if (typeof reply === "object" && !Buffer.isBuffer(reply)) return;
      socket.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    address: `127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A bootstrap naming only the given TLDs and prefixes (`[keys, urls]` per service). */
export function testBootstrap(services: {
  dns?: [string[], string[]][];
  ipv4?: [string[], string[]][];
  ipv6?: [string[], string[]][];
}): RdapBootstrap {
  const file = (s: [string[], string[]][] = []) => ({ publication: "2026-11-24T00:00:00Z", services: s });
  return { dns: file(services.dns), ipv4: file(services.ipv4), ipv6: file(services.ipv6), asn: file() };
}
