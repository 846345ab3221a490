import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { HostLookup } from "@vantage/probes";
import type { IcpCacheStore, IcpResult } from "../schema.js";

/*
 * Loopback fixtures for the ICP tests: every made-up `.test` name resolves to 127.0.0.1 through the
 * context's lookup, so no real resolver is asked and no packet leaves the host.
 */

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface TestServer {
  port: number;
  /** Requests seen, as `host path` (host without port), in order. */
  seen: string[];
  close: () => Promise<void>;
}

/** An HTTP (or, given a certificate, HTTPS) server on 127.0.0.1, a random port. */
export async function startServer(
  handler: Handler,
  tls?: { key: string; cert: string },
): Promise<TestServer> {
  const seen: string[] = [];
  const wrapped: Handler = (req, res) => {
    seen.push(`${(req.headers.host ?? "").replace(/:\d+$/, "")} ${req.url ?? ""}`);
    handler(req, res);
  };
  const server = tls ? https.createServer(tls, wrapped) : http.createServer(wrapped);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = await startServer(() => {});
  await server.close();
  return server.port;
}

/** `*.test` → 127.0.0.1; anything else fails as an unknown name would. */
export const loopbackLookup: HostLookup = async (host) => {
  if (host.endsWith(".test")) return [{ address: "127.0.0.1", family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
};

/** The host a request named, without its port. */
export function hostOf(req: http.IncomingMessage): string {
  return (req.headers.host ?? "").replace(/:\d+$/, "");
}

export function send(res: http.ServerResponse, status: number, body: string | Buffer, type?: string): void {
  res.writeHead(status, type ? { "content-type": type } : {});
  res.end(body);
}

/** An IcpCacheStore in a Map, counting writes. */
export class MemoryCache implements IcpCacheStore {
  readonly entries = new Map<string, IcpResult>();
  puts = 0;
  async get(domain: string): Promise<IcpResult | undefined> {
    return this.entries.get(domain);
  }
  async put(result: IcpResult): Promise<void> {
    this.puts++;
    this.entries.set(result.domain, result);
  }
}

export { selfSignedCert } from "@vantage/probes/testing/tls-cert";

/**
 * GBK bytes for the few Chinese characters the fixtures use (Node decodes GBK but has no encoder); the
 * test checks the table by decoding it.
 */
const GBK: Record<string, [number, number]> = {
  粤: [0xd4, 0xc1],
  备: [0xb1, 0xb8],
  号: [0xba, 0xc5],
  "：": [0xa3, 0xba],
};

export function encodeGbk(text: string): Buffer {
  const bytes: number[] = [];
  for (const ch of text) {
    const pair = GBK[ch];
    if (pair) bytes.push(...pair);
    else if (ch.charCodeAt(0) < 0x80) bytes.push(ch.charCodeAt(0));
    else throw new Error(`no GBK bytes for ${ch} in the fixture table`);
  }
  return Buffer.from(bytes);
}
