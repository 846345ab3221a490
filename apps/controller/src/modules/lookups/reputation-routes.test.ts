import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { closedPort, startFixtureDns } from "@vantage/lookups/testing/dnsbl-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * `/v1/ip/reputation` through the whole controller: fixture datasets in VANTAGE_REPUTATION_DATA_DIR, the
 * real IP data (8.8.8.8 is AS15169), a loopback DNSBL answering listed, not listed and error codes, and a
 * loopback HTTP server standing in for a dataset's URL.
 */
const files: Record<string, string> = {
  "tor/tor-exit-nodes.lst": "8.8.8.8\n",
  "hosting-vpn/input/datacenter/ASN.txt": "AS15169 # Google (fixture)\n",
  "hosting-vpn/input/vpn/ASN.txt": "AS64650 # Fixture VPN\n",
  "hosting-vpn/output/datacenter/ipv4.txt": "192.0.2.0/24\n",
  "hosting-vpn/output/datacenter/ipv6.txt": "2001:db8::/32\n",
  "hosting-vpn/output/vpn/ipv4.txt": "198.51.100.0/24\n",
  "hosting-vpn/output/vpn/ipv6.txt": "2001:db8:9::/48\n",
  "cloud-ranges/fixturecloud/ipv4_merged.txt": "203.0.113.0/24\n",
};

let dataDir: string;
let dns: Awaited<ReturnType<typeof startFixtureDns>>;
let list: Server;
let listBody = "9.9.9.9\n";

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "vantage-reputation-routes-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dataDir, path)), { recursive: true });
    await writeFile(join(dataDir, path), text);
  }
  dns = await startFixtureDns([
    // 8.8.8.8 on the fixture list as exploited (XBL); 9.9.9.9 not listed; 1.0.0.1 an error code.
    { name: "8.8.8.8.bl.test", type: "A", data: "127.0.0.4" },
    { name: "1.0.0.1.bl.test", type: "A", data: "127.255.255.254" },
  ]);
  list = createServer((_, res) => res.end(listBody));
  await new Promise<void>((r) => list.listen(0, "127.0.0.1", r));
});
afterAll(async () => {
  await dns?.close();
  await new Promise((r) => list?.close(r));
  await rm(dataDir, { recursive: true, force: true });
});

describe.each(forms)("GET /v1/ip/reputation, Form %s", (form) => {
  const db = useTestDb("pglite");
  const env = () => ({
    VANTAGE_REPUTATION_DATA_DIR: dataDir,
    VANTAGE_DNSBL_ZONES: "bl.test=spamhaus",
    VANTAGE_DNSBL_RESOLVER: `127.0.0.1:${dns.port}`,
    VANTAGE_REPUTATION_RDNS: "false",
  });
  const ask = (t: ReturnType<typeof db.app>, q: string, headers: Record<string, string> = {}) =>
    t.call("GET", `/v1/ip/reputation?q=${encodeURIComponent(q)}`, { headers });

  it("a Tor exit on a hosting ASN, listed: critical, both tags, weights adding up to the capped score", async () => {
    const t = db.app(form, env());
    const res = await ask(t, "8.8.8.8");
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({
      ip: "8.8.8.8",
      asn: "AS15169",
      country: "US",
      risk_level: "critical",
      cached: false,
    });
    expect(d.types).toEqual(expect.arrayContaining(["tor", "hosting"]));
    const sum = d.evidence.reduce((n: number, e: { weight: number }) => n + e.weight, 0);
    expect(d.score).toBe(Math.min(100, sum));
    expect(d.score_capped).toBe(sum > 100);
    expect(d.signals_checked).toEqual(expect.arrayContaining(["tor_exits", "hosting_asns", "dnsbl:bl.test"]));
    expect(d.data_versions).toHaveProperty("tor_exits");
    expect(res.headers.get("ratelimit-limit")).toBeNull();
  });

  it("a clean address is low; a DNSBL error code is unavailable, never listed", async () => {
    const t = db.app(form, env());
    const clean = await ask(t, "9.9.9.9");
    expect(clean.body.data).toMatchObject({ risk_level: "low", score: 0 });
    const err = await ask(t, "1.0.0.1");
    expect(err.status).toBe(200);
    expect(err.body.data.evidence.map((e: { signal: string }) => e.signal)).not.toContain("dnsbl_other");
    expect(err.body.data.signals_unavailable.map((s: { signal: string }) => s.signal)).toContain(
      "dnsbl:bl.test",
    );
  });

  it("a DNSBL that is down is reported unavailable and the answer still comes in time", async () => {
    const t = db.app(form, { ...env(), VANTAGE_DNSBL_RESOLVER: `127.0.0.1:${await closedPort()}` });
    const started = performance.now();
    const res = await ask(t, "8.8.4.4");
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(t.config.VANTAGE_REPUTATION_TIMEOUT_MS + 500);
    expect(res.body.data.signals_unavailable.map((s: { signal: string }) => s.signal)).toContain(
      "dnsbl:bl.test",
    );
    expect(res.body.data.types).toContain("hosting");
  });

  it("reserved addresses are not applicable; a domain is resolved; bad input is a 400 on query.q", async () => {
    const t = db.app(form, env(), {
      hostLookup: async (host) => {
        if (host === "tor-exit.example.test") return [{ address: "8.8.8.8", family: 4 }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      },
    });
    const reserved = await ask(t, "10.1.2.3");
    expect(reserved.body.data).toMatchObject({
      reserved: true,
      score: null,
      risk_level: "not_applicable",
      evidence: [],
    });
    const byName = await ask(t, "tor-exit.example.test");
    expect(byName.status).toBe(200);
    expect(byName.body.data).toMatchObject({ domain: "tor-exit.example.test", ip: "8.8.8.8" });
    expect(byName.body.data.types).toContain("tor");
    const nowhere = await ask(t, "nowhere.example.test");
    expect(nowhere.status).toBe(404);
    const bad = await ask(t, "1.2.3");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("query.q");
    expect((await t.call("GET", "/v1/ip/reputation")).status).toBe(400);
  });

  it("is metered as reputation for an account", async () => {
    const t = db.app(form, env());
    const u = await newUser(t, "rep-meter");
    const key = await issueKey(t, u.userId);
    expect((await ask(t, "9.9.9.9", keyHeaders(form, key.secret))).status).toBe(200);
    const usage = await t.call("GET", "/v1/account/usage", { headers: u.headers });
    expect(usage.body.data.usage[2]).toMatchObject({ family: "reputation", units: 1, calls: 1 });
  });

  it("a dataset's URL refreshes it in place; a bad download leaves the old data answering", async () => {
    const { port } = list.address() as AddressInfo;
    const t = db.app(form, {
      ...env(),
      VANTAGE_REPUTATION_SOURCES: `tor_exits=http://127.0.0.1:${port}/tor`,
    });
    listBody = "9.9.9.9\n";
    expect(await t.modules.lookups.service.reputationData.refresh()).toEqual({
      replaced: ["tor_exits"],
      failed: [],
    });
    const now = await ask(t, "9.9.9.9");
    expect(now.body.data.types).toContain("tor");
    expect(now.body.data.data_versions.tor_exits).toMatch(/^fetched-/);
    listBody = "<html>not a list</html>";
    expect(await t.modules.lookups.service.reputationData.refresh()).toEqual({
      replaced: [],
      failed: ["tor_exits"],
    });
    const still = await ask(t, "9.9.9.9");
    expect(still.body.data.types).toContain("tor");
  });
});
