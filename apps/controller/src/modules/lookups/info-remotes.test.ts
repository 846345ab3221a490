import http from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { selfSignedCert } from "@vantage/probes/testing/tls-cert";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbKinds, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/*
 * The lookups that reach remotes, through the routes, against loopback servers speaking the real protocols:
 * a port-43 WHOIS server, a TLS server with a self-signed certificate, an ICP provider over HTTP. Made-up
 * `.test` names resolve to 127.0.0.1 through the test app's lookup; nothing else is resolved.
 */
const toLoopback = async (host: string) => {
  if (host.endsWith(".test")) return [{ address: "127.0.0.1", family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
};

const whoisText = `Domain Name: EXAMPLE.TEST
Registrar: Vantage Test Registrar, Inc.
Registry Expiry Date: 2031-08-13T04:00:00Z
Name Server: NS2.EXAMPLE.TEST
Name Server: NS1.EXAMPLE.TEST
>>> Last update of whois database: 2026-11-24T00:00:00Z <<<
`;

let whois: TcpServer;
let whoisQueries: string[] = [];
let tlsServer: TlsServer;
let provider: http.Server;
let providerUp = true;

const portOf = (s: { address(): unknown }) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  whois = createTcpServer((socket) => {
    socket.once("data", (query) => {
      whoisQueries.push(query.toString().trim());
      socket.end(whoisText);
    });
  });
  await new Promise<void>((resolve) => whois.listen(0, "127.0.0.1", resolve));

  tlsServer = createTlsServer(selfSignedCert("secure.example.test"), (socket) => socket.end());
  await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));

  provider = http.createServer((req, res) => {
    if (!providerUp) return void res.writeHead(500).end("down");
    const domain = new URL(req.url ?? "/", "http://x").searchParams.get("domain");
    if (req.headers.authorization !== "Bearer test-key") return void res.writeHead(401).end();
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        domain,
        icp_number: "京ICP备10046444号-9",
        company: "测试科技有限公司",
        nature: "企业",
      }),
    );
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  await new Promise((resolve) => whois.close(resolve));
  await new Promise((resolve) => tlsServer.close(resolve));
  provider.closeAllConnections();
  await new Promise((resolve) => provider.close(resolve));
});

describe.each(forms)("remote lookups through the routes, Form %s", (form) => {
  const db = useTestDb("pglite");
  const env = () => ({
    VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
    VANTAGE_WHOIS_SERVERS: JSON.stringify({ test: `127.0.0.1:${portOf(whois)}` }),
  });

  it("WHOIS: a TLD without RDAP is asked on port 43; fields normalised; source whois", async () => {
    whoisQueries = [];
    const t = db.app(form, env(), { hostLookup: toLoopback });
    const res = await t.call("GET", "/v1/info/whois?q=Example.TEST");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      domain: "example.test",
      registrar: "Vantage Test Registrar, Inc.",
      expires_at: "2031-08-13",
      name_servers: ["ns1.example.test", "ns2.example.test"],
      source: "whois",
      server: `127.0.0.1:${portOf(whois)}`,
      cached: false,
    });
    expect((await t.call("GET", "/v1/info/whois?q=example.test")).body.data.cached).toBe(true);
    expect(whoisQueries).toHaveLength(1);
  });

  it("WHOIS: with the guard on, a loopback server is refused (422)", async () => {
    const t = db.app(form, { ...env(), VANTAGE_ALLOW_PRIVATE_TARGETS: "false" }, { hostLookup: toLoopback });
    const res = await t.call("GET", "/v1/info/whois?q=guarded.test");
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("target_not_allowed");
  });

  it("SSL: a real handshake with a self-signed server: untrusted, graded T, with its chain", async () => {
    const t = db.app(form, env(), { hostLookup: toLoopback });
    const res = await t.call("GET", `/v1/info/ssl?q=secure.example.test&port=${portOf(tlsServer)}`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ domain: "secure.example.test", valid: false, grade: "T", cached: false });
    expect(data.san_domains).toEqual(["secure.example.test"]);
    expect(data.chain).toHaveLength(1);
    // `openssl req -x509` marks a self-signed certificate CA:TRUE (basicConstraints), as the audit reports.
    expect(data.chain[0]).toMatchObject({ public_key_algorithm: "EC", public_key_bits: 256, is_ca: true });
    expect(data.warnings.map((w: { code: string }) => w.code)).toContain("self_signed");
    expect(data.tls_versions.map((v: { version: string }) => v.version)).toEqual([
      "TLS 1.0",
      "TLS 1.1",
      "TLS 1.2",
      "TLS 1.3",
    ]);
  });

  it("SSL: a URL instead of a bare domain is a 400 naming q", async () => {
    const t = db.app(form, env(), { hostLookup: toLoopback });
    const res = await t.call("GET", "/v1/info/ssl?q=https://secure.example.test/");
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe("query.q");
  });
});

describe.each(dbKinds)("ICP provider and the kept answers (%s)", (kind) => {
  const db = useTestDb(kind);

  it.each(forms)(
    "Form %s: the provider answers (verified); with it down, the kept answer is served",
    async (form) => {
      providerUp = true;
      const icpEnv = {
        VANTAGE_ICP_PROVIDER_URL: `http://127.0.0.1:${portOf(provider)}/icp`,
        VANTAGE_ICP_PROVIDER_KEY: "test-key",
        VANTAGE_LOOKUP_CACHE_ENTRIES: "0",
      };
      const t = db.app(form, icpEnv, { hostLookup: toLoopback });
      const path = `/v1/info/icp?${form === "a" ? "q" : "domain"}=shop-${form}.example.test`;
      const live = await t.call("GET", path);
      expect(live.status).toBe(200);
      expect(live.body.data).toMatchObject({
        domain: `shop-${form}.example.test`,
        icp_number: "京ICP备10046444号-9",
        company: "测试科技有限公司",
        license_type: "non_commercial_filing",
        status: "found",
        source: "provider",
        verified: true,
      });
      providerUp = false;
      const kept = await t.call("GET", path);
      expect(kept.status).toBe(200);
      expect(kept.body.data).toMatchObject({
        icp_number: "京ICP备10046444号-9",
        source: "cache",
        checked_at: live.body.data.checked_at,
      });
    },
  );
});
