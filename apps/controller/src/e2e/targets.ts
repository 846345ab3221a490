import { execFileSync } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Loopback targets for end-to-end probes: HTTP (`/slow?ms=` delays the answer), HTTPS with a throw-away
 * certificate from openssl, a TCP listener and a UDP DNS server answering every A query with one address.
 */
export interface Targets {
  httpUrl: string;
  httpsUrl: string;
  tcpPort: number;
  dnsServer: string;
  dnsAnswer: string;
  close(): Promise<void>;
}

const handler: RequestListener = (req, res) => {
  const ms = Number(new URL(req.url ?? "/", "http://x").searchParams.get("ms") ?? 0);
  setTimeout(() => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("hello from vantage e2e\n");
  }, ms);
};

const listen = (server: Server | ReturnType<typeof createTcpServer>) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

export async function startTargets(): Promise<Targets> {
  const dir = mkdtempSync(join(tmpdir(), "vantage-tls-"));
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  const http = createHttpServer(handler);
  const https = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, handler);
  const tcp = createTcpServer((s) => s.end());
  const dnsAnswer = "192.0.2.77";
  const dns = createSocket("udp4");
  dns.on("message", (msg, rinfo) => {
    const reply = answerA(msg, dnsAnswer);
    if (reply) dns.send(reply, rinfo.port, rinfo.address);
  });
  const [httpPort, httpsPort, tcpPort, dnsPort] = await Promise.all([
    listen(http),
    listen(https),
    listen(tcp),
    new Promise<number>((r) => dns.bind(0, "127.0.0.1", () => r(dns.address().port))),
  ]);
  return {
    httpUrl: `http://127.0.0.1:${httpPort}`,
    httpsUrl: `https://127.0.0.1:${httpsPort}`,
    tcpPort,
    dnsServer: `127.0.0.1:${dnsPort}`,
    dnsAnswer,
    async close() {
      http.closeAllConnections();
      https.closeAllConnections();
      await Promise.all([
        new Promise((r) => http.close(r)),
        new Promise((r) => https.close(r)),
        new Promise((r) => tcp.close(r)),
        new Promise<void>((r) => (dns as Socket).close(() => r())),
      ]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A minimal DNS responder: echoes the question and, for A/IN questions, answers `ip` (TTL 60). */
export function answerA(query: Buffer, ip: string): Buffer | undefined {
  if (query.length < 12) return undefined;
  let off = 12;
  while (off < query.length && query[off] !== 0) off += query[off]! + 1;
  const qEnd = off + 5; // zero byte, qtype, qclass
  if (qEnd > query.length) return undefined;
  const qtype = query.readUInt16BE(off + 1);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(0x8180, 2); // response, recursion desired + available, NOERROR
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(qtype === 1 ? 1 : 0, 6);
  const question = query.subarray(12, qEnd);
  if (qtype !== 1) return Buffer.concat([header, question]);
  const answer = Buffer.alloc(16);
  answer.writeUInt16BE(0xc00c, 0); // name: pointer to the question
  answer.writeUInt16BE(1, 2); // A
  answer.writeUInt16BE(1, 4); // IN
  answer.writeUInt32BE(60, 6);
  answer.writeUInt16BE(4, 10);
  for (const [i, o] of ip.split(".").entries()) answer.writeUInt8(Number(o), 12 + i);
  return Buffer.concat([header, question, answer]);
}

/** A Form B TCP probe's answer as the e2e tests read it: the status and each node's entry. */
export interface ProbeAnswer {
  status: number;
  results: { node_id: string; success: boolean; error?: { code: string } }[];
}

/** `POST /v1/probe/tcp` to the targets' TCP listener from `nodes`, through the controller at `url`. */
export async function probeTcp(url: string, targets: Targets, nodes: string[]): Promise<ProbeAnswer> {
  const res = await fetch(`${url}/v1/probe/tcp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ host: "127.0.0.1", port: targets.tcpPort, timeout: 2, nodes }),
  });
  const body = (await res.json()) as { data?: { results: ProbeAnswer["results"] } };
  return { status: res.status, results: body.data?.results ?? [] };
}
