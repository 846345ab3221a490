import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, startDashboard } from "./harness.js";

/**
 * The protocol options on the probe page (docs/protocol-options.md), in both API forms, against the
 * embedded controller's local node: only 127.0.0.1 is probed, nothing leaves the host.
 */
describe.each(["a", "b"] as const)("probe page protocol options, form %s", (form) => {
  let d: Dashboard;
  const roots = process.env.VANTAGE_DNS_ROOTS;
  beforeAll(async () => {
    // The embedded node's dns trace starts at loopback (nothing listens on 53 there), never at the real
    // root servers: no query leaves the host. Its agent process inherits this environment.
    process.env.VANTAGE_DNS_ROOTS = "127.0.0.1";
    d = await startDashboard({ form });
  }, 60_000);
  afterAll(async () => {
    await d?.stop();
    if (roots === undefined) delete process.env.VANTAGE_DNS_ROOTS;
    else process.env.VANTAGE_DNS_ROOTS = roots;
  });

  it("ping with size, DF and pmtu: sent as the API's fields; packet size and path MTU shown", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/probe?type=ping`);
    await page.getByLabel("Host name or IP address").fill("127.0.0.1");
    await page.getByLabel(/^Packets/).fill("2");
    await page.getByLabel(/^Packet size/).fill("1400");
    await page.getByRole("checkbox", { name: "Don't fragment (DF)" }).check();
    await page.getByRole("checkbox", { name: "Find the path MTU" }).check();
    const sent = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/v1/probe/ping"));
    await page.getByRole("button", { name: "Run Ping" }).click();
    const options = { count: 2, size: 1400, dont_fragment: true, pmtu: true };
    expect((await sent).postDataJSON()).toEqual(
      form === "a" ? { target: "127.0.0.1", params: options } : { host: "127.0.0.1", ...options },
    );
    const row = page.locator('li[data-node="local"][data-state="ok"]');
    await row.waitFor({ timeout: 40_000 });
    await row.getByText("Details").click();
    // Loopback's MTU is far above the search's ceiling (size): the largest size tried passes.
    await row.getByText("Packet size: 1400 bytes").waitFor();
    await row.getByText("Path MTU: 1400 bytes").waitFor();
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 120_000);

  it("dns trace hides the server field and sends trace; http2 is sent and the version shown", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/probe?type=dns`);
    await page.getByLabel("Domain").fill("example.test");
    await page.getByLabel("Transport").selectOption("tcp");
    await page.getByRole("checkbox", { name: "Ask for NSID" }).check();
    await page.getByRole("checkbox", { name: "Trace from the root servers" }).check();
    expect(await page.locator('input[name="server"]').count()).toBe(0);
    const dns = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/v1/probe/dns"));
    await page.getByRole("button", { name: "Run DNS" }).click();
    const dnsOptions = { protocol: "tcp", nsid: true, trace: true };
    expect((await dns).postDataJSON()).toEqual(
      form === "a"
        ? { target: "example.test", params: dnsOptions }
        : { domain: "example.test", ...dnsOptions },
    );
    // Its root (loopback) refuses: the row ends failed, naming the root zone.
    const traced = page.locator('li[data-node="local"][data-state="failed"]');
    await traced.waitFor({ timeout: 30_000 });
    expect(await traced.textContent()).toContain("zone .");

    const url = `${d.url}/v1/nodes`;
    await page.getByRole("radio", { name: "HTTP" }).check();
    await page.getByRole("textbox", { name: "URL", exact: true }).fill(url);
    await page.getByRole("checkbox", { name: "Offer HTTP/2 (ALPN)" }).check();
    const http = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/v1/probe/http"));
    await page.getByRole("button", { name: "Run HTTP" }).click();
    expect((await http).postDataJSON()).toEqual(
      form === "a" ? { target: url, params: { http2: true } } : { url, http2: true },
    );
    const row = page.locator('li[data-node="local"][data-state="ok"]');
    await row.waitFor({ timeout: 30_000 });
    await row.getByText("Details").click();
    // http:// has no h2c: HTTP/1.1, said so; the download phase has its row.
    await row.getByText("HTTP version: 1.1").waitFor();
    await row.getByRole("cell", { name: "Download" }).waitFor();
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 120_000);
});
