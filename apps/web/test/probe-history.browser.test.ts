import { type AddressInfo, createServer } from "node:net";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs, type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * The probe page's "Your recent probes" card (docs/dashboard.md, the Probe row), at phone width (390 px),
 * in both forms: the signed-in account's tasks newest first, 20 at a time ("More" adds the rest), each
 * with its time, type, target, nodes succeeded and a mark once shared, its target a link to the task's
 * page; a probe run on the page joins the top of the list once finished; signed out, no card and no
 * request for it. Probes go from the embedded controller's local node to loopback only.
 */

interface Summary {
  task_id: string;
  type: string;
  target: string;
  status: string;
  created_at: string;
  nodes: number;
  succeeded: number;
  share_id: string | null;
}

const pageWidth = `[document.documentElement.scrollWidth, document.body.scrollWidth]`;

function historyCard(page: Page): Locator {
  return page.locator("section.card", {
    has: page.getByRole("heading", { name: "Your recent probes", level: 2 }),
  });
}

/** A loopback port nothing listens on: a tcp probe of it fails (connection refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe.each(["a", "b"] as const)("recent probes on the probe page, Form %s", (form) => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form });
  }, 60_000);
  afterAll(() => d?.stop());

  const size = form === "a" ? "limit" : "per_page";
  const tcp = (port: number) =>
    form === "a" ? { target: "127.0.0.1", params: { port } } : { host: "127.0.0.1", port };

  it("lists the account's tasks newest first with counts and the shared mark; More adds the rest; a row opens its task", async () => {
    const page = await d.page({ width: 390, height: 844 });
    const token = await signIn(page, d.url, `history-${form}@example.com`);
    const api = apiAs(d.url, token);
    const port = Number(new URL(d.url).port);
    const refusedPort = await closedPort();
    // 21 tasks, oldest first: 19 that reach the controller, one refused, and a ping last (the newest).
    const created: string[] = [];
    for (let i = 0; i < 19; i++)
      created.push((await api("POST", "/v1/probe/tcp", tcp(port))).task_id as string);
    created.push((await api("POST", "/v1/probe/tcp", tcp(refusedPort))).task_id as string);
    created.push(
      (
        await api(
          "POST",
          "/v1/probe/ping",
          form === "a" ? { target: "127.0.0.1", params: { count: 1 } } : { host: "127.0.0.1", count: 1 },
        )
      ).task_id as string,
    );
    const refused = created[19]!;
    const share = await api("POST", `/v1/probe/tasks/${refused}/share`);
    // Every task listed and finished (Form A runs them after its 202; Form B writes each just after its answer).
    const listed = async () =>
      ((await api("GET", `/v1/probe/tasks?page=1&${size}=100`)).items as Summary[]).filter(
        (x) => x.status === "done" || x.status === "failed",
      ).length;
    await expect.poll(listed, { timeout: 30_000, interval: 100 }).toBe(21);
    const all = (await api("GET", `/v1/probe/tasks?page=1&${size}=100`)).items as Summary[];
    expect(all.map((x) => x.task_id)).toEqual([...created].reverse());

    await page.goto(`${d.url}/#/probe`);
    await page.reload(); // the session signIn stored, read as the app starts
    const card = historyCard(page);
    const rows = card.locator("tbody tr");
    await expect.poll(() => rows.count(), { timeout: 10_000, interval: 50 }).toBe(20);
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-task-id")));
    expect(ids).toEqual(all.slice(0, 20).map((x) => x.task_id));

    // The newest: a ping that reached the one node; then the refused tcp, shared; then one that connected.
    const [ping, shared, connected] = [rows.nth(0), rows.nth(1), rows.nth(2)];
    const when = (iso: string) =>
      page.evaluate(
        `new Date(${JSON.stringify(iso)}).toLocaleString("en", { dateStyle: "short", timeStyle: "short" })`,
      ) as Promise<string>;
    expect(await ping.locator("time").getAttribute("datetime")).toBe(all[0]!.created_at);
    expect(await ping.locator("time").textContent()).toBe(await when(all[0]!.created_at));
    expect(await ping.locator('td[data-label="Type"]').textContent()).toBe("Ping");
    expect(await ping.getByRole("link").textContent()).toBe(all[0]!.target);
    expect(await ping.locator('td[data-label="Succeeded"]').textContent()).toBe("1/1 node");
    expect(await ping.getByTestId("shared-mark").count()).toBe(0);
    expect(await shared.locator('td[data-label="Type"]').textContent()).toBe("TCP");
    expect(await shared.locator('td[data-label="Succeeded"]').textContent()).toBe("0/1 node");
    expect(await shared.getByTestId("shared-mark").textContent()).toBe("· Shared");
    expect(all[1]!.share_id).toBe(share.share_id);
    expect(await connected.locator('td[data-label="Succeeded"]').textContent()).toBe("1/1 node");
    expect(await connected.getByTestId("shared-mark").count()).toBe(0);

    // The page does not scroll sideways; every row's link is on screen.
    const [doc, body] = (await page.evaluate(pageWidth)) as [number, number];
    expect([doc, body]).toEqual([Math.min(doc, 390), Math.min(body, 390)]);
    const rights = await card
      .locator("tbody a")
      .evaluateAll((as) => as.map((a) => Math.round(a.getBoundingClientRect().right)));
    expect(Math.max(...rights)).toBeLessThanOrEqual(390);

    // The 21st, the oldest, comes with "More"; then every task is listed and the button goes.
    expect(await card.getByText("20 of 21 probes shown.").count()).toBe(1);
    await card.getByRole("button", { name: "More" }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000, interval: 50 }).toBe(21);
    expect(await rows.nth(20).getAttribute("data-task-id")).toBe(created[0]);
    expect(await card.getByRole("button", { name: "More" }).count()).toBe(0);

    // A row's link opens its task's page.
    await shared.getByRole("link").click();
    await page.waitForURL(`${d.url}/#/tasks/${refused}`);
    // The hash changes before the task's page is drawn: the probe page's heading may still be up.
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 10_000, interval: 50 })
      .toContain(refused);
    await page.locator('li[data-node="local"]').getByText("connection refused").waitFor();
    // "Probe … again" opens the probe form with the task's type and target filled in.
    const target = all[1]!.target;
    const again = page.getByRole("link", { name: `Probe ${target} again` });
    expect(await again.getAttribute("href")).toBe(`#/probe?${new URLSearchParams({ type: "tcp", target })}`);
    await again.click();
    await page.getByRole("button", { name: "Run TCP" }).waitFor();
    expect(await page.getByLabel("Host name or IP address").inputValue()).toBe(target);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 120_000);

  it("a probe run on the page joins the top of the list once finished", async () => {
    const page = await d.page({ width: 390, height: 844 });
    await signIn(page, d.url, `history-run-${form}@example.com`);
    await page.goto(`${d.url}/#/probe?type=tcp`);
    await page.reload();
    const card = historyCard(page);
    await card.getByText("No probes yet: run one above.").waitFor();

    const port = Number(new URL(d.url).port);
    await page.getByLabel("Host name or IP address").fill(`127.0.0.1:${port}`);
    await page.getByRole("button", { name: "Run TCP" }).click();
    await page.getByTestId("task-status").getByText("Done").waitFor({ timeout: 20_000 });
    const href = (await page.getByTestId("share-link").getAttribute("href")) ?? "";
    const id = href.slice("#/tasks/".length);
    expect(id).toMatch(/^task_[0-9a-z]+$/);
    const row = card.locator(`tbody tr[data-task-id="${id}"]`);
    await row.locator('td[data-label="Succeeded"]', { hasText: "1/1 node" }).waitFor({ timeout: 10_000 });
    expect(await card.locator("tbody tr").count()).toBe(1);
    expect(await row.locator('td[data-label="Type"]').textContent()).toBe("TCP");
    expect(await row.getByRole("link").getAttribute("href")).toBe(href);

    // A second run goes above the first.
    await page.getByRole("button", { name: "Run TCP" }).click();
    await expect.poll(() => card.locator("tbody tr").count(), { timeout: 20_000, interval: 50 }).toBe(2);
    const ids = await card
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-task-id")));
    expect(ids[1]).toBe(id);
    expect(ids[0]).not.toBe(id);
    await page.waitForURL(new RegExp(`task=${ids[0]}$`));
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 60_000);

  it("signed out, the probe page shows no list and asks for none", async () => {
    const page = await d.page({ width: 390, height: 844 });
    const asked: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/v1/probe/tasks") asked.push(r.url());
    });
    await page.goto(`${d.url}/#/probe`);
    await page.getByRole("button", { name: "Run Ping" }).waitFor();
    // The node directory is in (the page's one load), so the page is complete.
    await page.getByRole("radio", { name: "Choose nodes" }).check();
    await page.getByRole("checkbox", { name: /Local node/ }).waitFor();
    expect(await page.getByRole("heading", { name: "Your recent probes" }).count()).toBe(0);
    expect(await page.locator("main section.card").count()).toBe(1);
    expect(asked).toEqual([]);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });
});
