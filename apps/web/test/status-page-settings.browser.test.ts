import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs, type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * A status page's panel on the alerts page (docs/dashboard.md, "Status pages"), at phone width (390 px):
 * its title, slug and components edited (a blank component name and a slug another page has shown by
 * their fields), the list and the public page following; its own maintenance entries scheduled in the
 * browser's local time (an end before the start shown by its field) and deleted after the second click,
 * the public page read after each step. And an account past one page of monitors and policies (101 of
 * each): the alerts page's three forms offer, and its policies card lists, all of them. Both forms.
 */

const pageWidth = `[document.documentElement.scrollWidth, document.body.scrollWidth]`;

async function expectNoSidewaysScroll(page: Page) {
  const [doc, body] = (await page.evaluate(pageWidth)) as [number, number];
  expect([doc, body]).toEqual([Math.min(doc, 390), Math.min(body, 390)]);
  // Every control of the open panel inside the viewport.
  const right = (await page.evaluate(`Math.max(...[...document.querySelectorAll(
    "[id^=status-page-panel-] :is(button, a, input, select, textarea)")].map((e) => Math.round(e.getBoundingClientRect().right)))`)) as number;
  expect(right).toBeLessThanOrEqual(390);
}

/** The public page's HTML, and its status (404 once the slug moved). */
async function publicPage(url: string): Promise<[number, string]> {
  const res = await fetch(url);
  return [res.status, await res.text()];
}

function statusCard(page: Page): Locator {
  return page.locator("section.card", { has: page.getByRole("heading", { name: "Status pages", level: 2 }) });
}

describe.each(["a", "b"] as const)("a status page's settings and maintenance, Form %s", (form) => {
  let d: Dashboard;
  beforeAll(async () => {
    // No monitor limit on the free plan: the last test makes 101 monitors.
    d = await startDashboard({
      form,
      env: { VANTAGE_PLAN_LIMITS: JSON.stringify({ free: { monitors: null } }) },
    });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
  });

  it("edits the title, slug and components; field errors by their fields; the list and public page follow", async () => {
    const page = await d.page({ width: 390, height: 844 });
    const token = await signIn(page, d.url, `settings-${form}@example.com`);
    const api = apiAs(d.url, token);
    const monitor = async (name: string) => {
      const m = await api("POST", "/v1/monitors", {
        name,
        type: "ping",
        ...(form === "a" ? { target: "127.0.0.1", interval_s: 3600 } : { host: "127.0.0.1", interval: 3600 }),
      });
      await api("POST", `/v1/monitors/${m.id as string}/pause`);
      return m.id as string;
    };
    const shop = await monitor("shop");
    const apiId = await monitor("api");
    const sp = await api("POST", "/v1/status-pages", {
      slug: "acme",
      title: "Acme Status",
      components: [{ name: "shop", monitor_ids: [shop] }],
    });
    await api("POST", "/v1/status-pages", { slug: "taken", title: "Other" });

    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    const card = statusCard(page);
    await card.getByRole("button", { name: "Manage Acme Status" }).click();
    const panel = card.getByRole("region", {
      name: "Acme Status: settings, incidents, maintenance and subscribers",
    });
    const open = panel.getByRole("button", { name: "Edit Acme Status" });
    await open.click();
    expect(await open.getAttribute("aria-expanded")).toBe("true");
    const edit = panel.getByRole("form", { name: "Edit Acme Status" });
    expect(await edit.getByLabel("Title").inputValue()).toBe("Acme Status");
    expect(await edit.getByLabel(/^Slug/).inputValue()).toBe("acme");
    // The page's component shown under its name; the other monitor offered, not shown.
    expect(await edit.getByLabel("Show shop").isChecked()).toBe(true);
    expect(await edit.getByLabel("Name on the page for shop").inputValue()).toBe("shop");
    expect(await edit.getByLabel("Show api").isChecked()).toBe(false);
    expect(await edit.getByLabel("Name on the page for api").isDisabled()).toBe(true);
    await expectNoSidewaysScroll(page);

    // A blank name: the API's 400, by that component's row.
    await edit.getByLabel("Show api").check();
    await edit.getByLabel("Name on the page for api").fill("   ");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await edit.locator('[data-field-error="body.components.1"]').waitFor();
    expect(await edit.getByLabel("Name on the page for api").getAttribute("aria-invalid")).toBe("true");
    expect(await edit.getByLabel("Name on the page for shop").getAttribute("aria-invalid")).toBeNull();

    // Another page's slug: the API's conflict, by the slug's field; nothing changed.
    await edit.getByLabel("Name on the page for api").fill("API");
    await edit.getByLabel(/^Slug/).fill("taken");
    await edit.getByText("A new slug moves the public page", { exact: false }).waitFor();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await edit.locator('[data-field-error="body.slug"]', { hasText: "another page has this slug" }).waitFor();
    expect(await edit.getByLabel(/^Slug/).getAttribute("aria-invalid")).toBe("true");
    expect(await edit.locator('[data-field-error^="body.components"]').count()).toBe(0);
    expect(await api("GET", `/v1/status-pages/${sp.id as string}`)).toMatchObject({
      slug: "acme",
      title: "Acme Status",
      components: [{ name: "shop", monitor_ids: [shop] }],
    });
    await expectNoSidewaysScroll(page);

    // Saved: a new title, slug, a component renamed and one added; the form closes and says so.
    await edit.getByLabel("Title").fill("Acme Platform");
    await edit.getByLabel(/^Slug/).fill("acme-platform");
    await edit.getByLabel("Name on the page for shop").fill("Web shop");
    await edit.getByRole("button", { name: "Save changes" }).click();
    const moved = card.getByRole("region", {
      name: "Acme Platform: settings, incidents, maintenance and subscribers",
    });
    await moved.getByRole("status").getByText("Acme Platform saved.").waitFor();
    await edit.waitFor({ state: "detached" });
    const row = card.getByRole("row", { name: /Acme Platform/ });
    expect(await row.getByRole("link").textContent()).toBe(`${d.url}/status/acme-platform`);
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("2");
    expect(await api("GET", `/v1/status-pages/${sp.id as string}`)).toMatchObject({
      slug: "acme-platform",
      title: "Acme Platform",
      components: [
        { name: "Web shop", monitor_ids: [shop] },
        { name: "API", monitor_ids: [apiId] },
      ],
    });
    let [status, html] = await publicPage(`${d.url}/status/acme-platform`);
    expect(status).toBe(200);
    expect(html).toContain("<h1>Acme Platform</h1>");
    expect(html.indexOf("<span>Web shop</span>")).toBeGreaterThan(0);
    expect(html.indexOf("<span>API</span>")).toBeGreaterThan(html.indexOf("<span>Web shop</span>"));
    expect((await publicPage(`${d.url}/status/acme`))[0]).toBe(404);

    // A component taken off the page; the title alone kept.
    await moved.getByRole("button", { name: "Edit Acme Platform" }).click();
    const again = moved.getByRole("form", { name: "Edit Acme Platform" });
    expect(await again.getByLabel("Name on the page for shop").inputValue()).toBe("Web shop");
    await again.getByLabel("Show shop").uncheck();
    await again.getByRole("button", { name: "Save changes" }).click();
    await again.waitFor({ state: "detached" });
    await expect.poll(async () => row.getByRole("cell").nth(2).textContent()).toBe("1");
    [status, html] = await publicPage(`${d.url}/status/acme-platform`);
    expect(html).toContain("<span>API</span>");
    expect(html).not.toContain("Web shop");

    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
      "Failed to load resource: the server responded with a status of 409 (Conflict)",
    ]);
  }, 120_000);

  it("schedules maintenance in the browser's time zone and deletes it after asking", async () => {
    const page = await d.page({ width: 390, height: 844 });
    // Not UTC, and no daylight saving time: 08:00 here is 23:00 UTC the day before.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setTimezoneOverride", { timezoneId: "Asia/Tokyo" });
    const token = await signIn(page, d.url, `maintenance-${form}@example.com`);
    const api = apiAs(d.url, token);
    const sp = await api("POST", "/v1/status-pages", { slug: "ops", title: "Ops" });
    const base = `/v1/status-pages/${sp.id as string}/maintenance`;
    await api("POST", base, {
      title: "Old upgrade",
      starts_at: "2020-01-01T00:00:00Z",
      ends_at: "2020-01-01T01:00:00Z",
    });

    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    await statusCard(page).getByRole("button", { name: "Manage Ops" }).click();
    const panel = page.getByRole("region", { name: "Ops: settings, incidents, maintenance and subscribers" });
    const table = panel.getByRole("table", { name: "Maintenance" });
    await table.locator("tr", { hasText: "Old upgrade" }).getByText("Over").waitFor();
    const schedule = panel.getByRole("form", { name: "Schedule maintenance on Ops" });
    await schedule.getByText("Times are in this browser's time zone, Asia/Tokyo.").waitFor();

    // The end before the start: the API's 400, by the end's field.
    await schedule.getByLabel("Title").fill("DB upgrade");
    await schedule.getByLabel("Start (local time, Asia/Tokyo)").fill("2031-03-10T08:00");
    await schedule.getByLabel("End (local time, Asia/Tokyo)").fill("2031-03-10T07:00");
    await schedule.getByLabel("Message (optional)").fill("Writes pause for a minute.");
    await schedule.getByRole("button", { name: "Schedule maintenance" }).click();
    await schedule
      .locator('[data-field-error="body.ends_at"]', { hasText: "must be after the start" })
      .waitFor();
    expect(await schedule.getByLabel(/^End/).getAttribute("aria-invalid")).toBe("true");
    await expectNoSidewaysScroll(page);

    await schedule.getByLabel(/^End/).fill("2031-03-10T10:30");
    await schedule.getByRole("button", { name: "Schedule maintenance" }).click();
    await panel.getByRole("status").getByText("DB upgrade scheduled.").waitFor();
    expect(await schedule.getByLabel("Title").inputValue()).toBe("");
    const stored = (await api("GET", base)).items as Record<string, unknown>[];
    expect(stored).toMatchObject([
      {
        title: "DB upgrade",
        description: "Writes pause for a minute.",
        starts_at: "2031-03-09T23:00:00.000Z",
        ends_at: "2031-03-10T01:30:00.000Z",
      },
      { title: "Old upgrade" },
    ]);
    // Shown in local time, latest start first (the notice comes before the list's reload has drawn it).
    await table.locator("tr", { hasText: "DB upgrade" }).waitFor();
    const entry = table.locator("tbody tr").first();
    expect(await entry.getByRole("cell").nth(0).textContent()).toBe("DB upgradeWrites pause for a minute.");
    // (Chromium's English times put a narrow no-break space before AM.)
    expect((await entry.getByRole("cell").nth(1).textContent())?.replace(/\u202f/g, " ")).toBe(
      "3/10/2031, 8:00:00 AM – 3/10/2031, 10:30:00 AM",
    );
    expect(await entry.getByRole("cell").nth(2).textContent()).toBe("Scheduled");
    let html = (await publicPage(`${d.url}/status/ops`))[1];
    expect(html).toContain(
      '<article class="m"><h3>DB upgrade</h3><p>Writes pause for a minute.</p><small>2031-03-09 23:00 UTC – 2031-03-10 01:30 UTC</small></article>',
    );
    await expectNoSidewaysScroll(page);

    // Delete asks once more: cancelled, nothing goes; confirmed, it leaves the list and the public page.
    const remove = panel.getByRole("button", { name: "Delete maintenance DB upgrade" });
    await remove.click();
    const ask = panel.getByRole("group", { name: "Delete DB upgrade? It leaves the public page." });
    await expectNoSidewaysScroll(page);
    await ask.getByRole("button", { name: "Cancel" }).click();
    await remove.waitFor();
    expect((await api("GET", base)).total).toBe(2);
    await remove.click();
    await ask.getByRole("button", { name: "Delete", exact: true }).click();
    await panel.getByRole("status").getByText("DB upgrade deleted.").waitFor();
    await table.locator("tr", { hasText: "DB upgrade" }).waitFor({ state: "detached" });
    expect(await api("GET", base)).toMatchObject({ items: [{ title: "Old upgrade" }], total: 1 });
    html = (await publicPage(`${d.url}/status/ops`))[1];
    expect(html).not.toContain("DB upgrade");
    expect(html).not.toContain("Scheduled maintenance");

    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
  }, 120_000);

  it("with more than a page of monitors and policies (101), the alerts page offers and lists all of them", async () => {
    const page = await d.page({ width: 390, height: 844 });
    const token = await signIn(page, d.url, `many-${form}@example.com`);
    const api = apiAs(d.url, token);
    const ids: string[] = [];
    for (let i = 1; i <= 101; i++) {
      const name = `load-${String(i).padStart(3, "0")}`;
      const m = await api("POST", "/v1/monitors", {
        name,
        type: "ping",
        ...(form === "a" ? { target: "127.0.0.1", interval_s: 3600 } : { host: "127.0.0.1", interval: 3600 }),
      });
      ids.push(m.id as string);
    }
    expect((await api("GET", "/v1/monitors")).total).toBe(101);
    // And a policy for each: the policies card lists all 101, each monitor named.
    const channel = await api("POST", "/v1/alert-channels", {
      name: "ops hook",
      type: "webhook",
      config: { url: "http://127.0.0.1:9/hook", secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` },
    });
    const policyIds: string[] = [];
    for (const [i, id] of ids.entries()) {
      const policy = await api("POST", "/v1/alert-policies", {
        name: `policy-${i + 1}`,
        monitor_id: id,
        channel_ids: [channel.id],
      });
      policyIds.push(policy.id as string);
    }

    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    const policy = page.getByRole("form", { name: "Add a policy" });
    const window = page.getByRole("form", { name: "Add a maintenance window" });
    const create = page.getByRole("form", { name: "Create a status page" });
    await create.getByLabel("load-101").waitFor();
    for (const name of ["load-001", "load-101"]) {
      expect(await policy.locator("option", { hasText: name }).count()).toBe(1);
      expect(await window.locator("option", { hasText: name }).count()).toBe(1);
    }
    expect(await create.getByRole("checkbox").count()).toBe(101);
    const policies = page.locator("tr[data-policy-id]");
    expect(await policies.count()).toBe(101);
    const policyRow = (i: number) => page.locator(`tr[data-policy-id="${policyIds[i]}"]`);
    expect(await policyRow(0).textContent()).toMatch(/^policy-1load-001ops hook/);
    expect(await policyRow(100).textContent()).toMatch(/^policy-101load-101ops hook/);

    // The first and the last monitor on a new page: its components name both.
    await create.getByLabel("Title").fill("Fleet");
    await create.getByLabel(/^Slug/).fill(`fleet-${form}`);
    await create.getByLabel("load-001").check();
    await create.getByLabel("load-101").check();
    await create.getByRole("button", { name: "Create page" }).click();
    await statusCard(page).getByRole("button", { name: "Manage Fleet" }).waitFor();
    const pages = await api("GET", "/v1/status-pages");
    const fleet = (pages.items as { slug: string; components: { monitor_ids: string[] }[] }[]).find(
      (p) => p.slug === `fleet-${form}`,
    );
    expect(fleet?.components.flatMap((c) => c.monitor_ids).sort()).toEqual([ids[0], ids[100]].sort());
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 120_000);
});
