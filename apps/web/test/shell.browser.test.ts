import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, startDashboard } from "./harness.js";

/** The dashboard's shell in real Chromium: served at /, nothing fetched from elsewhere, three languages. */
describe("dashboard shell", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form: "b" });
  }, 60_000);
  afterAll(() => d?.stop());

  it("a browser gets the app at / (an API client the JSON landing), with a CSP, no request leaves the server", async () => {
    const api = await fetch(`${d.url}/`);
    expect(((await api.json()) as { data: unknown }).data).toMatchObject({ docs: "/docs", api_form: "b" });
    const page = await d.page();
    const res = await page.goto(`${d.url}/`);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("navigation", { name: "main" }).waitFor();
    expect(await page.locator("footer").textContent()).toContain("API form B");
    await page.selectOption("#lang", "cn");
    await page.getByRole("link", { name: "节点" }).waitFor();
    expect(await page.evaluate("document.documentElement.lang")).toBe("zh-Hans");
    await page.selectOption("#lang", "tw");
    await page.getByRole("link", { name: "節點" }).waitFor();
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });

  it("pages that need an account ask to sign in first", async () => {
    const page = await d.page();
    await page.goto(`${d.url}/#/keys`);
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    expect(page.outside).toEqual([]);
  });
});
