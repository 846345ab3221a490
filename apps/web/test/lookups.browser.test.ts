import type { AddressInfo } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCert } from "../../../packages/probes/src/testing/tls-cert.js";
import { type Dashboard, startDashboard } from "./harness.js";

/**
 * Lookups (`#/lookups`) in both API forms. Only what is answered without the network is looked up: a
 * documentation address (IP info and reputation come from local data, and reserved addresses are never
 * queried), an SSL audit of a loopback server; WHOIS, DNS and ICP are only sent input the API refuses.
 */
describe.each(["a", "b"] as const)("lookups page, form %s", (form) => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form });
  }, 60_000);
  afterAll(() => d?.stop());

  it("an IP lookup of 192.0.2.1 reads as a documentation address, and its link shows it again", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/lookups`);
    expect(await page.getByRole("tab", { name: "IP info" }).getAttribute("aria-selected")).toBe("true");
    await page.getByLabel(/^IP address/).fill("192.0.2.1");
    const asked = page.waitForRequest((r) => new URL(r.url()).pathname === "/v1/info/ip");
    await page.getByRole("button", { name: "Look up" }).click();
    expect(new URL((await asked).url()).search).toBe(form === "a" ? "?q=192.0.2.1" : "?ip=192.0.2.1");

    const result = page.getByTestId("lookup-result");
    await result.getByText("Documentation range (example addresses)").waitFor();
    const text = await result.textContent();
    expect(text).toContain("192.0.2.1");
    expect(text).toContain("Special address");
    expect(text).toContain("DB-IP"); // the data's credit, kept next to it
    expect(await result.locator("pre").count()).toBe(0); // readable, not a JSON dump…
    await page.getByText("Raw JSON").click(); // …which is there, folded
    expect(await page.locator("details pre").textContent()).toContain('"range": "documentation"');
    expect(page.url()).toMatch(/#\/lookups\?tab=ip&q=192\.0\.2\.1$/);

    const other = await d.page({ width: 390, height: 844 });
    await other.goto(page.url());
    await other.getByText("Documentation range (example addresses)").waitFor();
    expect(await other.getByLabel(/^IP address/).inputValue()).toBe("192.0.2.1");
    expect(await other.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    for (const p of [page, other]) {
      expect(p.outside).toEqual([]);
      expect(p.errors).toEqual([]);
    }
  });

  it("the tabs work from the keyboard; a reserved address's reputation is not scored", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/lookups`);
    await page.getByRole("tab", { name: "IP info" }).focus();
    await page.keyboard.press("ArrowRight");
    await page.waitForURL(/tab=whois$/);
    await expect.poll(() => page.evaluate("document.activeElement.id")).toBe("tab-whois");
    await page.keyboard.press("End");
    await page.waitForURL(/tab=reputation$/);
    await expect.poll(() => page.evaluate("document.activeElement.id")).toBe("tab-reputation");
    // The tab's selection follows the address's change (a render after the hash moves), focus at once.
    await expect
      .poll(() => page.getByRole("tab", { name: "IP reputation" }).getAttribute("aria-selected"))
      .toBe("true");

    await page.keyboard.press("Tab"); // into the panel's field
    await page.keyboard.type("192.0.2.1");
    await page.keyboard.press("Enter");
    const level = page.getByTestId("risk-level");
    await level.waitFor();
    expect(await level.textContent()).toBe("Not applicable");
    expect(await page.getByTestId("badge").getAttribute("aria-label")).toBe("Not scored");
    expect(await page.getByTestId("lookup-result").textContent()).toContain(
      "A special address, Documentation range (example addresses): nothing is checked for it.",
    );
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });

  it("the SSL audit takes a pasted URL or domain:port, asks for q and port apart, and grades it", async () => {
    // A self-signed loopback server; `localhost` is answered by /etc/hosts, no DNS is asked.
    const tls = createTlsServer(selfSignedCert(), (s) => s.end());
    const port = await new Promise<number>((ok) =>
      tls.listen(0, "127.0.0.1", () => ok((tls.address() as AddressInfo).port)),
    );
    try {
      const page = await d.page();
      await page.goto(`${d.url}/#/lookups?tab=ssl`);
      await page.getByLabel(/^Domain/).fill(`https://localhost:${port}/login?x=1`);
      const asked = page.waitForRequest((r) => new URL(r.url()).pathname === "/v1/info/ssl");
      await page.getByRole("button", { name: "Look up" }).click();
      expect(new URL((await asked).url()).search).toBe(`?q=localhost&port=${port}`);
      await page.getByTestId("badge").waitFor({ timeout: 20_000 });
      expect(await page.getByLabel(/^Domain/).inputValue()).toBe("localhost");
      expect(await page.getByRole("spinbutton", { name: "Port" }).inputValue()).toBe(String(port));

      // domain:port whose port differs from the Port field: said at once, nothing sent.
      await page.getByLabel(/^Domain/).fill("localhost:444");
      await page.getByRole("button", { name: "Look up" }).click();
      await page.getByText("The domain names port 444 and the Port field another").waitFor();

      // What the API still refuses comes back with the parameter at fault.
      await page.getByRole("spinbutton", { name: "Port" }).fill("");
      await page.getByLabel(/^Domain/).fill("bad name.example:443");
      await page.getByRole("button", { name: "Look up" }).click();
      await page.getByRole("alert").waitFor();
      expect(await page.getByTestId("error-details").textContent()).toContain("query.q");
      expect(page.outside).toEqual([]);
      expect(page.errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    } finally {
      tls.close();
    }
  });
});
