import { chromiumPath } from "@vantage/testing";
import { pino } from "pino";
import { type Browser, type ConsoleMessage, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../runtime.js";
import { lendPgliteDb } from "../../testing/pglite-pool.js";
import { testConfig } from "../../testing/test-app.js";

/** What Scalar shows by default and this deployment must not: its cloud features. */
const vendorLabels = ["Ask AI", "Generate MCP", "Deploy", "Share", "Developer Tools", "Open API Client"];

/**
 * The docs page (/docs) in a real browser against a real listening controller: it renders the document,
 * every request it makes goes to this server, and the vendor's cloud features are gone.
 */
describe("the API docs page in Chromium", () => {
  let rt: Runtime;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    rt = await startRuntime(testConfig("b"), pino({ level: "silent" }), {
      db: (await lendPgliteDb()).db,
    });
    origin = new URL(rt.url ?? "").origin;
    // As root, Chromium runs only without its sandbox.
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  /** A fresh page on /docs, recording every request it makes, its console and its uncaught errors. */
  async function openDocs(): Promise<{
    page: Page;
    requests: string[];
    console: ConsoleMessage[];
    errors: Error[];
  }> {
    const context = await browser.newContext();
    const requests: string[] = [];
    const console: ConsoleMessage[] = [];
    const errors: Error[] = [];
    context.on("request", (r) => requests.push(r.url()));
    const page = await context.newPage();
    page.on("console", (m) => console.push(m));
    page.on("pageerror", (e) => errors.push(e));
    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    // The page runs under the server's policy: what it would fetch elsewhere is refused and reported.
    expect(res?.headers()["content-security-policy"]).toContain("connect-src 'self'");
    await expect.poll(() => page.getByText("Liveness: the process answers").first().isVisible()).toBe(true);
    return { page, requests, console, errors };
  }

  const cspComplaints = (messages: ConsoleMessage[]) =>
    messages.map((m) => m.text()).filter((t) => /content security policy|refused to/i.test(t));

  it("renders the document from this server alone, without the vendor's cloud features", async () => {
    const { page, requests, console, errors } = await openDocs();
    // The document's title and the description of what this deployment serves.
    await expect.poll(() => page.getByText("Vantage API (Form B)").first().isVisible()).toBe(true);
    await expect
      .poll(() => page.getByText("billing_not_configured", { exact: false }).first().isVisible())
      .toBe(true);
    // The document's download is a link to the document this server serves.
    const download = page.locator("a", { hasText: "Download OpenAPI Document" });
    expect(await download.getAttribute("href")).toBe("/v1/openapi.json");
    // Scalar's search (where the agent chat is offered too): open it, then look.
    await page.keyboard.press("Control+k");
    await page.waitForTimeout(500);

    const shown: string[] = [];
    for (const label of vendorLabels) {
      if ((await page.getByText(label, { exact: true }).filter({ visible: true }).count()) > 0)
        shown.push(label);
    }
    expect(shown).toEqual([]);
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    expect(requests).toEqual(
      expect.arrayContaining([`${origin}/docs`, `${origin}/docs/standalone.js`, `${origin}/v1/openapi.json`]),
    );
    expect(cspComplaints(console)).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([]);
    await page.context().close();
  });

  it("Test Request sends the request from the page straight to this server (no proxy)", async () => {
    const { page, requests, console, errors } = await openDocs();
    await page.getByRole("button", { name: /Test Request.*\/healthz/ }).click();
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === "/healthz");
    await page.getByRole("button", { name: /^Send get request/ }).click();
    expect((await sent).url()).toBe(`${origin}/healthz`);
    await expect.poll(() => page.getByText("200 OK").first().isVisible()).toBe(true);

    expect(requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    expect(cspComplaints(console)).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([]);
    await page.context().close();
  });
});
