import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopbackSite } from "../../controller/src/testing/loopback-site.js";
import { apiAs, type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * Every page of the dashboard at phone size (390 × 844), signed in and with data on it (a monitor with
 * runs, an API key, a webhook channel and its policy, a finished ping task, an IP lookup): the page never
 * scrolls sideways, and the monitors', keys' and nodes' rows keep their actions on screen and their
 * targets readable (cards, not two characters a line).
 */

/** Every hash pattern main.tsx routes. */
const routed = [
  ...readFileSync(new URL("../src/main.tsx", import.meta.url), "utf8").matchAll(/pattern: "([^"]+)"/g),
]
  .map((m) => m[1]!)
  .sort();

const pageWidth = `[document.documentElement.scrollWidth, document.body.scrollWidth]`;

/** Right edges and widths of the table rows' buttons, links and target cells, in CSS pixels. */
const rowBoxes = `[...document.querySelectorAll("main table.cards tbody tr")].map((tr) => ({
  controls: [...tr.querySelectorAll("button, a")].map((e) => Math.round(e.getBoundingClientRect().right)),
  narrowest: Math.min(...[...tr.querySelectorAll("td")].map((td) => Math.round(td.getBoundingClientRect().width))),
}))`;

describe.each(["a", "b"] as const)("every page at 390 px, Form %s", (form) => {
  let d: Dashboard;
  const site = loopbackSite();
  beforeAll(async () => {
    await site.start();
    d = await startDashboard({ form });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    await site.stop();
  });

  it("no page scrolls sideways; table rows become cards with their actions on screen", async () => {
    const page = await d.page({ width: 390, height: 844 });
    const token = await signIn(page, d.url, `phone-${form}@example.com`);
    const api = apiAs(d.url, token);
    const longUrl = `${site.url}/a/rather/long/path/that/people/do/monitor?with=query&and=more`;
    const monitor = await api(
      "POST",
      "/v1/monitors",
      form === "a"
        ? { name: "Shop front page with a long name", type: "http", target: longUrl, interval_s: 60 }
        : { name: "Shop front page with a long name", type: "http", url: longUrl, interval: 60 },
    );
    await api("POST", "/v1/account/api-keys", { name: "ci-deploy-from-the-build-server" });
    const channel = await api("POST", "/v1/alert-channels", {
      name: "ops hook",
      type: "webhook",
      config: { url: `${site.url}/hook`, secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` },
    });
    await api("POST", "/v1/alert-policies", {
      name: "on-call",
      monitor_id: monitor.id,
      channel_ids: [channel.id],
    });
    const task = await api(
      "POST",
      "/v1/probe/ping",
      form === "a" ? { target: "127.0.0.1", params: { count: 1 } } : { host: "127.0.0.1", count: 1 },
    );

    const visits: [pattern: string, hash: string, ready: string][] = [
      ["/", "#/", 'tr[data-node="local"]'],
      ["/probe", "#/probe", "main form"],
      ["/tasks/:id", `#/tasks/${task.task_id as string}`, "main .node-result"],
      ["/lookups", "#/lookups?tab=ip&q=192.0.2.1", "main dl"],
      ["/login", "#/login", "main form"],
      ["/verify-email", "#/verify-email?token=not-a-real-token", "main h1"],
      ["/reset-password", "#/reset-password?token=not-a-real-token", "main h1"],
      ["/password", "#/password", "main h1"],
      ["/keys", "#/keys", "main table.cards"],
      ["/monitors", "#/monitors", "main table.cards"],
      ["/monitors/:id", `#/monitors/${monitor.id as string}`, "main h1 [data-state]"],
      ["/alerts", "#/alerts", "main table"],
      ["/account", "#/account", "main h2"],
    ];
    // Every route main.tsx declares is visited (a visit of a route not declared yet shows "No such page").
    expect(routed.filter((p) => !visits.some((v) => v[0] === p))).toEqual([]);

    for (const [pattern, hash, ready] of visits) {
      // The login page is for the signed-out: sign out for it, and back in after.
      if (pattern === "/login") await page.evaluate(`localStorage.removeItem("vantage.token")`);
      await page.goto(`${d.url}/${hash}`);
      await page.reload();
      await page
        .locator(ready)
        .first()
        .waitFor({ timeout: 10_000 })
        .catch((err: Error) => {
          throw new Error(`${pattern}: ${err.message}`);
        });
      // Every part of the page loaded (a page may show several "Loading…" at once: the plan page has three).
      await expect
        .poll(() => page.locator("main [aria-busy=true]").count(), { timeout: 10_000, interval: 50 })
        .toBe(0);
      const [doc, body] = (await page.evaluate(pageWidth)) as [number, number];
      expect(`${pattern}: ${doc} ${body}`).toBe(`${pattern}: ${Math.min(doc, 390)} ${Math.min(body, 390)}`);
      // The made-up token is refused (400), and the browser logs the answer: that one is expected.
      if (hash.includes("not-a-real-token")) {
        const others = page.errors.filter((e) => !e.includes("status of 400"));
        page.errors.splice(0, page.errors.length, ...others);
      }
      if (pattern === "/login")
        await page.evaluate(`localStorage.setItem("vantage.token", ${JSON.stringify(token)})`);
      if (["/", "/keys", "/monitors"].includes(pattern)) {
        const rows = (await page.evaluate(rowBoxes)) as { controls: number[]; narrowest: number }[];
        expect(rows.length, pattern).toBeGreaterThan(0);
        for (const row of rows) {
          expect(Math.max(...row.controls), pattern).toBeLessThanOrEqual(390);
          expect(row.narrowest, pattern).toBeGreaterThan(150);
        }
      }
    }
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });
});
