import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, startDashboard } from "./harness.js";

/** The node directory (`#/`): the embedded controller's one local node, in the table and on the map. */
describe("node directory", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form: "b" });
  }, 60_000);
  afterAll(() => d?.stop());

  it("lists the embedded node with its place and status, marks it on the map, and filters by the data", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/`);
    const row = page.locator('tr[data-node="local"]');
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain("Local node");
    expect(text).toContain("Online");
    expect(text).toContain("local"); // region and provider

    const marker = page.locator('[data-node-marker="local"]');
    await marker.waitFor();
    expect(await marker.getAttribute("class")).toBe("node-online");
    // Country ZZ ("unknown") has no place on the map: the marker sits in the strip under it, titled so.
    expect(await marker.locator("title").textContent()).toBe("Local node: online, Location unknown");
    expect(await page.locator(".map path.land").count()).toBeGreaterThan(150);

    // The selects hold what the data holds.
    expect(await page.getByLabel("Provider").locator("option").allTextContents()).toEqual(["All", "local"]);
    await page.getByLabel("Provider").selectOption("local");
    await row.waitFor();
    await page.getByLabel("Status").selectOption("offline");
    await page.getByText("No node matches these filters.").waitFor();
    expect(await page.locator("[data-node-marker]").count()).toBe(0);
    await page.getByRole("button", { name: "Clear filters" }).click();
    await row.waitFor();
    await marker.waitFor();

    // A way on to a probe from this node.
    await row.getByRole("link", { name: "Probe from Local node" }).click();
    await page.waitForURL(/#\/probe\?nodes=local$/);
    expect(await page.getByRole("checkbox", { name: /Local node/ }).isChecked()).toBe(true);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });

  it("asks the API again every 10 seconds", async () => {
    const page = await d.page();
    await page.clock.install();
    let asked = 0;
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/v1/nodes") asked += 1;
    });
    await page.goto(`${d.url}/#/`);
    await page.locator('tr[data-node="local"]').waitFor();
    expect(asked).toBe(1);
    const again = page.waitForRequest((r) => new URL(r.url()).pathname === "/v1/nodes");
    await page.clock.runFor(10_000);
    await again;
    expect(asked).toBe(2);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });

  it("fits a phone's screen (390×844), in Simplified and Traditional Chinese", async () => {
    const page = await d.page({ width: 390, height: 844 });
    await page.goto(`${d.url}/#/`);
    await page.selectOption("#lang", "cn");
    await page.getByRole("heading", { name: "探测节点" }).waitFor();
    await page.locator('[data-node-marker="local"]').waitFor();
    expect(await page.locator('[data-node-marker="local"] title').textContent()).toBe(
      "Local node：在线，位置未知",
    );
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.selectOption("#lang", "tw");
    await page.getByRole("heading", { name: "探測節點" }).waitFor();
    expect(await page.locator('tr[data-node="local"]').textContent()).toContain("上線");
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });

  it("places nodes by their country: several in one country around it, offline ones red", async () => {
    const page = await d.page();
    const node = (id: string, country: string, status = "online") => ({
      id,
      name: `Node ${id}`,
      country,
      region: `r-${country.toLowerCase()}`,
      provider: "p",
      status,
      last_seen: "2026-11-25T00:00:00.000Z",
      version: "0.1.0",
      capabilities: ["ipv4", "http", "ping"],
    });
    // A directory of several countries, served in place of the API's (the embedded controller has one node).
    const items = [
      node("us1", "US"),
      node("de1", "DE"),
      node("de2", "DE", "offline"),
      node("sg1", "SG"),
      node("au1", "AU"),
    ];
    await page.route("**/v1/nodes", (route) =>
      route.fulfill({ json: { data: { items }, request_id: "req_test" } }),
    );
    await page.goto(`${d.url}/#/`);
    await page.locator("[data-node-marker]").first().waitFor();
    const at = async (id: string) => {
      const c = page.locator(`[data-node-marker="${id}"] circle`);
      return { x: Number(await c.getAttribute("cx")), y: Number(await c.getAttribute("cy")) };
    };
    const [us, de1, de2, sg, au] = [
      await at("us1"),
      await at("de1"),
      await at("de2"),
      await at("sg1"),
      await at("au1"),
    ];
    expect(us.x).toBeLessThan(de1.x); // west to east
    expect(de1.x).toBeLessThan(sg.x);
    expect(de1.y).toBeLessThan(sg.y); // north to south
    expect(sg.y).toBeLessThan(au.y);
    expect(Math.hypot(de1.x - de2.x, de1.y - de2.y)).toBeGreaterThan(5); // side by side, not on top
    expect(Math.hypot(de1.x - de2.x, de1.y - de2.y)).toBeLessThan(30);
    expect(await page.locator('[data-node-marker="de2"]').getAttribute("class")).toBe("node-offline");
    expect(await page.locator('[data-node-marker="de2"] title').textContent()).toBe(
      "Node de2: offline, Germany",
    );
    expect(await page.locator('[data-node-marker="sg1"] title').textContent()).toBe(
      "Node sg1: online, Singapore",
    );
    await page.getByText("Location unknown").waitFor({ state: "detached" });

    await page.getByLabel("Country").selectOption("DE");
    expect(await page.locator("[data-node-marker]").count()).toBe(2);
    expect(await page.locator("tr[data-node]").count()).toBe(2);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });
});
