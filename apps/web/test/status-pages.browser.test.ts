import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs, type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * Status pages on the alerts page (docs/status-pages.md): a page made through its form over one of the
 * account's monitors (a taken slug is shown by its field), listed with a link to its public page that
 * serves it, an incident posted through the form and shown on that public page, the page deleted.
 */
describe("status pages from the dashboard, Form B", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form: "b" });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
  });

  it("creates a page over a monitor, links its public page, posts an incident to it, deletes it", async () => {
    const page = await d.page();
    const token = await signIn(page, d.url, "status-pages-web@example.com");
    const api = apiAs(d.url, token);
    const monitor = await api("POST", "/v1/monitors", {
      name: "shop",
      type: "ping",
      host: "127.0.0.1",
      interval: 3600,
    });
    // Paused: no run, so no incident the page would open by itself beside the one posted here.
    await api("POST", `/v1/monitors/${monitor.id as string}/pause`);

    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    const card = page.locator("section.card", {
      has: page.getByRole("heading", { name: "Status pages", level: 2 }),
    });
    await card.getByText("No status pages.").waitFor();
    const create = page.getByRole("form", { name: "Create a status page" });
    await create.getByLabel("Title").fill("Acme Status");
    // The slug follows the title until it is edited.
    expect(await create.getByLabel(/^Slug/).inputValue()).toBe("acme-status");
    await create.getByLabel("shop").check();
    await create.getByRole("button", { name: "Create page" }).click();

    const row = card.getByRole("row", { name: /Acme Status/ });
    await row.waitFor();
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("1");
    const link = row.getByRole("link");
    expect(await link.textContent()).toBe(`${d.url}/status/acme-status`);
    const publicUrl = new URL((await link.getAttribute("href"))!, d.url).href;
    expect(publicUrl).toBe(`${d.url}/status/acme-status`);
    const stored = (await api("GET", "/v1/status-pages")).items as Record<string, unknown>[];
    expect(stored).toMatchObject([
      {
        slug: "acme-status",
        title: "Acme Status",
        components: [{ name: "shop", monitor_ids: [monitor.id] }],
      },
    ]);
    const before = await fetch(publicUrl);
    expect(before.status).toBe(200);
    const html = await before.text();
    expect(html).toContain("<h1>Acme Status</h1>");
    expect(html).toContain("<span>shop</span>");
    expect(html).not.toContain("Checkout errors");

    // The same slug again: the API's conflict, shown by the slug's field; the form keeps what was typed.
    await create.getByLabel("Title").fill("Acme Status");
    await create.getByRole("button", { name: "Create page" }).click();
    await create
      .locator('[data-field-error="body.slug"]', { hasText: "another page has this slug" })
      .waitFor();
    expect(await create.getByLabel(/^Slug/).getAttribute("aria-invalid")).toBe("true");

    const post = page.getByRole("form", { name: "Post an incident" });
    expect(await post.getByLabel(/^Page/).inputValue()).toBe(stored[0]!.id);
    await post.getByLabel("Title").fill("Checkout errors");
    await post.getByLabel(/^Status/).selectOption("identified");
    await post.getByLabel("Message").fill("Payments fail for some cards.");
    await post.getByRole("button", { name: "Post incident" }).click();
    await post.getByRole("status").getByText("Posted to Acme Status.").waitFor();
    expect(await post.getByLabel("Title").inputValue()).toBe("");
    const after = await (await fetch(publicUrl)).text();
    expect(after).toContain("Checkout errors <small>identified · minor impact</small>");
    expect(after).toContain("<strong>identified</strong> — Payments fail for some cards.");

    await row.getByRole("button", { name: "Delete Acme Status" }).click();
    await card.getByRole("button", { name: "Delete", exact: true }).click();
    await row.waitFor({ state: "detached" });
    await card.getByText("No status pages.").waitFor();
    expect(await post.count()).toBe(0); // no page left to post to
    expect((await fetch(publicUrl)).status).toBe(404);
    expect(await api("GET", "/v1/status-pages")).toMatchObject({ items: [], total: 0 });

    expect(page.outside).toEqual([]);
    // The taken slug is the only failed request.
    expect(page.errors).toEqual([
      "Failed to load resource: the server responded with a status of 409 (Conflict)",
    ]);
  }, 120_000);
});
