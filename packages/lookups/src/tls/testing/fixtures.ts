import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import type { HostLookup } from "@vantage/probes";
import { buildOcspResponse } from "./ocsp-response.js";
import { createIntermediate, createRoot, type Issued, issueLeaf } from "./pki.js";

/*
 * The loopback servers of the TLS tests and of bench/tls-vs-testssl.ts, one per case, each on 127.0.0.1 at
 * a random port under a made-up name (`valid.test`…) that `lookup` maps to 127.0.0.1: the system resolver
 * is never asked. The root is trusted only through ctx.tls.extraCa (`caPem`).
 */

export const fixtureNames = [
  "valid",
  "hsts",
  "expired",
  "self-signed",
  "wrong-name",
  "weak-key",
  "tls10",
  "ocsp-good",
  "ocsp-revoked",
  "incomplete",
  "sha1",
] as const;
export type FixtureName = (typeof fixtureNames)[number];

export interface Fixture {
  name: FixtureName;
  /** The name to audit (SNI), e.g. `valid.test`. */
  host: string;
  port: number;
  /** What the server sends, leaf first. */
  leaf: Issued;
}

export interface Fixtures {
  caPem: string;
  root: Issued;
  intermediate: Issued;
  servers: Record<FixtureName, Fixture>;
  /** A port that speaks plain text, one that accepts and never answers, one nothing listens on. */
  plainPort: number;
  silentPort: number;
  closedPort: number;
  lookup: HostLookup;
  close: () => Promise<void>;
}

const OCSP_URL = "http://ocsp.vantage.test/";

export async function startFixtures(): Promise<Fixtures> {
  const root = await createRoot();
  const intermediate = await createIntermediate(root);
  const leaf = (names: string[], extra: Parameters<typeof issueLeaf>[1] = { names }) =>
    issueLeaf(intermediate, { ...extra, names });
  const [
    valid,
    hsts,
    expired,
    selfSigned,
    wrongName,
    weakKey,
    tls10,
    ocspGood,
    ocspRevoked,
    incomplete,
    sha1,
  ] = await Promise.all([
    leaf(["valid.test", "www.valid.test"], { names: [], scts: 2 }),
    leaf(["hsts.test"]),
    leaf(["expired.test"], { names: [], notBeforeDays: -100, notAfterDays: -10 }),
    issueLeaf(null, { names: ["self-signed.test"] }),
    leaf(["other.test"]),
    leaf(["weak-key.test"], { names: [], key: { rsaBits: 1024 } }),
    leaf(["tls10.test"]),
    leaf(["ocsp-good.test"], { names: [], ocspUrl: OCSP_URL }),
    leaf(["ocsp-revoked.test"], { names: [], ocspUrl: OCSP_URL }),
    leaf(["incomplete.test"]),
    leaf(["sha1.test"], { names: [], hash: "SHA-1" }),
  ]);
  const [goodStaple, revokedStaple] = await Promise.all([
    buildOcspResponse(ocspGood, intermediate, "good"),
    buildOcspResponse(ocspRevoked, intermediate, "revoked"),
  ]);
  const chained = (l: Issued) => ({ cert: l.certPem + intermediate.certPem, key: l.keyPem });
  const closers: (() => Promise<void>)[] = [];
  // Closing waits for open connections (an HSTS keep-alive, a probe the test abandoned): end them all.
  const listen = async (server: net.Server): Promise<number> => {
    const open = new Set<net.Socket>();
    server.on("connection", (socket: net.Socket) => {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          server.close(() => r());
          for (const socket of open) socket.destroy();
        }),
    );
    return (server.address() as net.AddressInfo).port;
  };
  const tlsServer = (options: tls.TlsOptions, staple?: Buffer) => {
    const server = tls.createServer(options, (socket) => socket.end());
    server.on("tlsClientError", () => {});
    if (staple) server.on("OCSPRequest", (_cert, _issuer, done) => done(null, staple));
    return listen(server);
  };
  const hstsServer = https.createServer({ ...chained(hsts) }, (req, res) => {
    res.writeHead(200, { "strict-transport-security": "max-age=31536000; includeSubDomains" });
    res.end(req.method === "HEAD" ? undefined : "ok");
  });
  hstsServer.on("tlsClientError", () => {});
  const legacy = { ciphers: "DEFAULT@SECLEVEL=0" };
  const ports = await Promise.all([
    tlsServer(chained(valid)),
    listen(hstsServer),
    tlsServer(chained(expired)),
    tlsServer({ cert: selfSigned.certPem, key: selfSigned.keyPem }),
    tlsServer(chained(wrongName)),
    tlsServer({ ...chained(weakKey), ...legacy }),
    tlsServer({ ...chained(tls10), ...legacy, minVersion: "TLSv1", maxVersion: "TLSv1" }),
    tlsServer(chained(ocspGood), goodStaple),
    tlsServer(chained(ocspRevoked), revokedStaple),
    tlsServer({ cert: incomplete.certPem, key: incomplete.keyPem }),
    tlsServer({ ...chained(sha1), ...legacy }),
  ]);
  const leaves = [
    valid,
    hsts,
    expired,
    selfSigned,
    wrongName,
    weakKey,
    tls10,
    ocspGood,
    ocspRevoked,
    incomplete,
    sha1,
  ];
  const servers = Object.fromEntries(
    fixtureNames.map((name, i) => [
      name,
      { name, host: `${name}.test`, port: ports[i] ?? 0, leaf: leaves[i] as Issued },
    ]),
  ) as Record<FixtureName, Fixture>;

  // A client giving up resets the connection: each socket takes its error, or it would be uncaught.
  const plainPort = await listen(
    net.createServer((s) => s.on("error", () => {}).end("HTTP/1.1 400 Bad Request\r\n\r\n")),
  );
  const silentPort = await listen(net.createServer((s) => s.on("error", () => {})));
  const spare = net.createServer();
  await new Promise<void>((r) => spare.listen(0, "127.0.0.1", r));
  const closedPort = (spare.address() as net.AddressInfo).port;
  await new Promise<void>((r) => spare.close(() => r()));

  return {
    caPem: root.certPem,
    root,
    intermediate,
    servers,
    plainPort,
    silentPort,
    closedPort,
    lookup: async (host) => (/\.test$/.test(host) ? [{ address: "127.0.0.1", family: 4 }] : []),
    close: async () => {
      await Promise.all(closers.map((c) => c()));
    },
  };
}
