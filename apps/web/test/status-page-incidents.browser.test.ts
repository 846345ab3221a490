import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs, type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * A status page's incidents and subscribers on the alerts page (docs/dashboard.md, "Status pages"): the
 * incidents listed open ones first, an incident posted through the form, updated and resolved there, the
 * public page read after each step; a bad update shown by its field, the form busy while it posts; the
 * subscribers listed and one removed after the second click, at phone width (390 px); 51 incidents and
 * 51 maintenance entries listed 50 at a time, the oldest with each list's button.
 */

/** The panel's incidents as "title: status", in the order shown. */
async function listed(panel: Locator): Promise<string[]> {
  const rows = panel.getByRole("table", { name: "Incidents" }).locator("tbody tr");
  const out: string[] = [];
  for (const row of await rows.all()) {
    const cells = row.getByRole("cell");
    // The title's first line: its updates are folded under it.
    out.push(
      `${await cells.nth(1).locator("div div").first().textContent()}: ${await cells.nth(0).textContent()}`,
    );
  }
  return out;
}

const pageWidth = `[document.documentElement.scrollWidth, document.body.scrollWidth]`;
/** The right edge of the rightmost button or link of the status pages' card, in CSS pixels. */
const rightmost = `Math.max(...[...document.querySelectorAll("main section.card button, main section.card a")]
  .filter((e) => e.closest("section.card").querySelector("h2")?.textContent === "Status pages")
  .map((e) => Math.round(e.getBoundingClientRect().right)))`;

async function expectNoSidewaysScroll(page: Page) {
  const [doc, body] = (await page.evaluate(pageWidth)) as [number, number];
  expect([doc, body]).toEqual([Math.min(doc, 390), Math.min(body, 390)]);
  expect(await page.evaluate(rightmost)).toBeLessThanOrEqual(390);
}

describe.each(["a", "b"] as const)("status page incidents and subscribers, Form %s", (form) => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
  });

  it("lists open incidents first, posts an update, resolves one; the public page follows", async () => {
    const page = await d.page();
    const token = await signIn(page, d.url, `incidents-${form}@example.com`);
    const api = apiAs(d.url, token);
    const sp = await api("POST", "/v1/status-pages", { slug: "acme", title: "Acme Status" });
    const incidents = `/v1/status-pages/${sp.id as string}/incidents`;
    await api("POST", incidents, { title: "DNS slow", message: "Lookups take seconds." });
    const old = await api("POST", incidents, { title: "Old outage", message: "Down." });
    await api("POST", `${incidents}/${old.id as string}/updates`, { status: "resolved", message: "Up." });
    const publicUrl = `${d.url}/status/acme`;
    const publicPage = async () => (await fetch(publicUrl)).text();

    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    const card = page.locator("section.card", {
      has: page.getByRole("heading", { name: "Status pages", level: 2 }),
    });
    const manage = card.getByRole("button", { name: "Manage Acme Status" });
    expect(await manage.getAttribute("aria-expanded")).toBe("false");
    await manage.click();
    expect(await manage.getAttribute("aria-expanded")).toBe("true");
    const panel = card.getByRole("region", {
      name: "Acme Status: settings, incidents, maintenance and subscribers",
    });
    await panel.getByRole("table", { name: "Incidents" }).waitFor();
    // Newest first from the API; the open one first here.
    expect(await listed(panel)).toEqual(["DNS slow: Investigating", "Old outage: Resolved"]);
    const oldRow = panel.locator("tbody tr", { hasText: "Old outage" });
    expect(await oldRow.getByRole("button").count()).toBe(0); // resolved: nothing to post
    const stored = (await api("GET", incidents)).items as { title: string; updated_at: string }[];
    const dnsAt = stored.find((i) => i.title === "DNS slow")!.updated_at;
    const dnsRow = panel.locator("tbody tr", { hasText: "DNS slow" });
    expect(await dnsRow.getByRole("cell").nth(2).textContent()).toBe(
      await page.evaluate(`new Date(${JSON.stringify(dnsAt)}).toLocaleString("en")`),
    );
    await panel.getByText("No subscribers.", { exact: false }).waitFor();

    // Posted through the form: listed at once, the open ones by their last update.
    const post = page.getByRole("form", { name: "Post an incident" });
    await post.getByLabel("Title").fill("Checkout errors");
    await post.getByLabel(/^Status/).selectOption("identified");
    await post.getByLabel("Message").fill("Payments fail for some cards.");
    await post.getByRole("button", { name: "Post incident" }).click();
    await post.getByRole("status").getByText("Posted to Acme Status.").waitFor();
    await expect
      .poll(() => listed(panel))
      .toEqual(["Checkout errors: Identified", "DNS slow: Investigating", "Old outage: Resolved"]);
    let html = await publicPage();
    expect(html).toContain("Checkout errors <small>identified · minor impact</small>");
    expect(html).toContain("<strong>identified</strong> — Payments fail for some cards.");

    // An update: its form starts at the incident's status; a blank message is shown by its field.
    const open = panel.getByRole("button", { name: "Post an update to Checkout errors" });
    await open.click();
    expect(await open.getAttribute("aria-expanded")).toBe("true");
    const update = panel.getByRole("form", { name: "Post an update to Checkout errors" });
    expect(await update.getByLabel("Status").inputValue()).toBe("identified");
    await update.getByLabel("Message").fill("   ");
    await update.getByRole("button", { name: "Post update" }).click();
    await update.locator('[data-field-error="body.message"]').waitFor();
    expect(await update.getByLabel("Message").getAttribute("aria-invalid")).toBe("true");
    await update.getByLabel("Status").selectOption("monitoring");
    await update.getByLabel("Message").fill("A fix is rolling out.");
    await update.getByRole("button", { name: "Post update" }).click();
    await panel.getByRole("status").getByText("Update posted to Checkout errors.").waitFor();
    await update.waitFor({ state: "detached" });
    await expect
      .poll(() => listed(panel))
      .toEqual(["Checkout errors: Monitoring", "DNS slow: Investigating", "Old outage: Resolved"]);
    html = await publicPage();
    expect(html).toContain("Checkout errors <small>monitoring · minor impact</small>");
    const monitoring = html.indexOf("<strong>monitoring</strong> — A fix is rolling out.");
    expect(monitoring).toBeGreaterThan(0);
    // Newest update first, the first one kept.
    expect(html.indexOf("<strong>identified</strong> — Payments fail for some cards.")).toBeGreaterThan(
      monitoring,
    );

    // Resolved: the form is busy until the API answers; the incident moves behind the open one.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route("**/updates", async (route) => {
      await held;
      await route.fallback();
    });
    await panel.getByRole("button", { name: "Post an update to Checkout errors" }).click();
    await update.getByLabel("Status").selectOption("resolved");
    await update.getByText("Resolved resolves the incident", { exact: false }).waitFor();
    await update.getByLabel("Message").fill("Payments work again.");
    await update.getByRole("button", { name: "Post update" }).click();
    const busy = update.getByRole("button", { name: "Posting…" });
    await busy.waitFor();
    expect(await busy.isDisabled()).toBe(true);
    release();
    await panel.getByRole("status").getByText("Checkout errors is resolved.").waitFor();
    await page.unroute("**/updates");
    await expect
      .poll(() => listed(panel))
      .toEqual(["DNS slow: Investigating", "Checkout errors: Resolved", "Old outage: Resolved"]);
    expect(await panel.getByRole("button", { name: "Post an update to Checkout errors" }).count()).toBe(0);
    html = await publicPage();
    expect(html).toContain(
      '<article class="i resolved"><h3>Checkout errors <small>resolved · minor impact</small></h3>',
    );
    expect(html).toContain("<strong>resolved</strong> — Payments work again.");
    const checkout = ((await api("GET", incidents)).items as Record<string, unknown>[]).find(
      (i) => i.title === "Checkout errors",
    );
    expect(checkout).toMatchObject({ status: "resolved", resolved_at: expect.any(String) });
    expect((checkout!.updates as { status: string }[]).map((u) => u.status)).toEqual([
      "resolved",
      "monitoring",
      "identified",
    ]);
    // The updates, folded under the title.
    await panel.locator("tbody tr", { hasText: "Checkout errors" }).getByText("Updates (3)").click();
    await panel.getByText("Payments work again.", { exact: false }).waitFor();

    // In Chinese.
    await page.evaluate(`localStorage.setItem("vantage.locale", "cn")`);
    await page.reload();
    await page.getByRole("button", { name: "管理 Acme Status" }).click();
    const zh = page.getByRole("region", { name: "Acme Status：设置、事件、维护和订阅者" });
    await zh.getByRole("button", { name: "为 DNS slow 发布进展" }).click();
    await zh
      .getByRole("form", { name: "为 DNS slow 发布进展" })
      .getByRole("button", { name: "发布进展" })
      .waitFor();
    expect(await zh.getByRole("table", { name: "事件" }).locator("tbody tr").first().textContent()).toContain(
      "调查中",
    );

    expect(page.outside).toEqual([]);
    // The blank message is the only failed request.
    expect(page.errors).toEqual([
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
  }, 120_000);

  it("lists incidents and maintenance 50 at a time; the older ones come with their buttons", async () => {
    const page = await d.page({ width: 390, height: 844 });
    const token = await signIn(page, d.url, `paging-${form}@example.com`);
    const api = apiAs(d.url, token);
    const sp = await api("POST", "/v1/status-pages", { slug: `paged-${form}`, title: "Paged Status" });
    const base = `/v1/status-pages/${sp.id as string}`;
    for (let i = 1; i <= 51; i++) {
      const inc = await api("POST", `${base}/incidents`, { title: `Incident ${i}`, message: "Down." });
      await api("POST", `${base}/incidents/${inc.id as string}/updates`, {
        status: "resolved",
        message: "Up.",
      });
    }
    const start = Date.now() + 86_400_000;
    for (let i = 1; i <= 51; i++) {
      const at = (h: number) => new Date(start + (i * 24 + h) * 3_600_000).toISOString();
      await api("POST", `${base}/maintenance`, { title: `Window ${i}`, starts_at: at(0), ends_at: at(1) });
    }

    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    const card = page.locator("section.card", {
      has: page.getByRole("heading", { name: "Status pages", level: 2 }),
    });
    await card.getByRole("button", { name: "Manage Paged Status" }).click();
    const panel = card.getByRole("region", {
      name: "Paged Status: settings, incidents, maintenance and subscribers",
    });
    const incidents = panel.getByRole("table", { name: "Incidents" }).locator("tbody tr");
    await expect.poll(() => incidents.count(), { timeout: 10_000, interval: 50 }).toBe(50);
    expect(await panel.getByText("50 of 51 incidents shown.").count()).toBe(1);
    // Newest first: the first incident posted is the one left for the next page.
    const first = await listed(panel);
    expect(first[0]).toBe("Incident 51: Resolved");
    expect(first).not.toContain("Incident 1: Resolved");
    await panel.getByRole("button", { name: "Show older incidents" }).click();
    await expect.poll(() => incidents.count(), { timeout: 10_000, interval: 50 }).toBe(51);
    expect((await listed(panel)).at(-1)).toBe("Incident 1: Resolved");
    expect(await panel.getByRole("button", { name: "Show older incidents" }).count()).toBe(0);

    const windows = panel.getByRole("table", { name: "Maintenance" }).locator("tbody tr");
    await expect.poll(() => windows.count(), { timeout: 10_000, interval: 50 }).toBe(50);
    expect(await panel.getByText("50 of 51 entries shown.").count()).toBe(1);
    await panel.getByRole("button", { name: "Show older maintenance" }).click();
    await expect.poll(() => windows.count(), { timeout: 10_000, interval: 50 }).toBe(51);
    expect(await panel.getByRole("button", { name: "Show older maintenance" }).count()).toBe(0);
    await expectNoSidewaysScroll(page);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 120_000);

  it("lists subscribers 50 at a time and removes one after asking, at 390 px", async () => {
    const page = await d.page({ width: 390, height: 844 });
    const token = await signIn(page, d.url, `subscribers-${form}@example.com`);
    const api = apiAs(d.url, token);
    const sp = await api("POST", "/v1/status-pages", { slug: "news", title: "News" });
    const base = `/v1/status-pages/${sp.id as string}`;
    await api("POST", `${base}/incidents`, { title: "Router swap", message: "Short outages." });
    const hook = "http://127.0.0.1:9/a/rather/long/path/for/the/status/page/hook?with=query&and=more";
    await api("POST", `${base}/subscribers`, { url: hook });
    const reader = `reader-${form}@example.com`;
    const subscribed = await fetch(`${d.url}/status/news/subscribe`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: reader }),
    });
    expect(subscribed.status).toBe(202);

    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    await page.getByRole("button", { name: "Manage News" }).click();
    const panel = page.getByRole("region", {
      name: "News: settings, incidents, maintenance and subscribers",
    });
    const readerRow = panel.locator("tr", { hasText: reader });
    await readerRow.getByText("Waiting for the mailed link").waitFor();
    await panel.locator("tr", { hasText: hook }).getByText("Confirmed").waitFor();
    await expectNoSidewaysScroll(page);

    await panel.getByRole("button", { name: "Post an update to Router swap" }).click();
    await panel.getByRole("form", { name: "Post an update to Router swap" }).waitFor();
    await expectNoSidewaysScroll(page);

    const remove = panel.getByRole("button", { name: `Remove ${hook}` });
    await remove.click();
    const ask = panel.getByRole("group", { name: `Remove ${hook}? It gets no more news of this page.` });
    await expectNoSidewaysScroll(page);
    await ask.getByRole("button", { name: "Cancel" }).click();
    await remove.waitFor();
    expect((await api("GET", `${base}/subscribers`)).total).toBe(2);

    await panel.getByRole("button", { name: `Remove ${reader}` }).click();
    await panel
      .getByRole("group", { name: `Remove ${reader}? It gets no more news of this page.` })
      .getByRole("button", { name: "Remove", exact: true })
      .click();
    await panel.getByRole("status").getByText(`${reader} removed.`).waitFor();
    await readerRow.waitFor({ state: "detached" });
    expect(await api("GET", `${base}/subscribers`)).toMatchObject({
      items: [{ type: "webhook", destination: hook }],
      total: 1,
    });
    await expectNoSidewaysScroll(page);

    // Past a list's first 50: the count shown, and the next page on asking.
    for (let i = 0; i < 50; i++)
      await api("POST", `${base}/subscribers`, { url: `http://127.0.0.1:9/hook/${i}` });
    await page.reload();
    await page.getByRole("button", { name: "Manage News" }).click();
    await panel.getByText("50 of 51 subscribers shown.").waitFor();
    await panel.getByRole("button", { name: "Show more subscribers" }).click();
    await panel.locator("tr", { hasText: hook }).waitFor();
    await panel.getByRole("button", { name: "Show more subscribers" }).waitFor({ state: "detached" });
    expect(await panel.locator("tbody tr[data-subscriber-id]").count()).toBe(51);

    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 120_000);
});
