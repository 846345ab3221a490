import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopbackSite } from "../../controller/src/testing/loopback-site.js";
import { apiAs, type Dashboard, signIn, startDashboard } from "./harness.js";
import { localeTables, stillEnglish } from "./locale-tables.js";

/**
 * Every page of the dashboard in Simplified and Traditional Chinese, signed in and with data on it (a
 * monitor, an API key, a channel and its policy, a ping task, an IP lookup): no text, label or placeholder
 * on screen is one of the dashboard's English texts (a table whose locale lost a key), a raw message key,
 * or English that bypassed the tables (a string in a page's code, a name the API gives unchanged).
 * test/i18n-complete.test.ts checks the tables themselves.
 */

/** Every hash pattern main.tsx routes. */
const routed = [
  ...readFileSync(new URL("../src/main.tsx", import.meta.url), "utf8").matchAll(/pattern: "([^"]+)"/g),
]
  .map((m) => m[1]!)
  .sort();

const tables = localeTables();
const letters = /[A-Za-z]/;

/**
 * The English texts that read differently in `locale` (or that `locale` lacks), placeholder-free: they
 * show as written. Texts that some table of `locale` uses as they are ("URL", "HTTP") are left out.
 */
function englishOnly(locale: "cn" | "tw"): Set<string> {
  const out = new Set<string>();
  const kept = new Set(tables.flatMap((t) => [...t.values[locale].values()]));
  for (const t of tables) {
    for (const [k, en] of t.values.en) {
      const missing = !t.values[locale].has(k);
      const other = t.values[locale].get(k);
      if (!en || kept.has(en) || !letters.test(en) || en.includes("{")) continue;
      if (missing || (other !== undefined && other !== en)) out.add(en.trim());
    }
  }
  return out;
}

/**
 * What the page shows as it came, in any locale: the names this test gave, the node's, the product's, URLs
 * and addresses, probe type lists ("http, dns, tcp"), figures in ms, the data sources' attribution.
 */
const isData = (s: string) =>
  /^(Vantage|shop|ci|hook|on-call|local|Local node)$/.test(s) ||
  /:\/\/|@|CC BY/.test(s) ||
  /^[a-z]+(, [a-z]+)+$/.test(s) ||
  /^[\d.,]+ ms$/.test(s);

/** The sign-in page's heading: a page that needs an account must not show it (the visit reached the page). */
const signInTitle = (() => {
  const login = tables.find((t) => t.where.startsWith("pages/login.tsx") && t.values.en.has("title"));
  return { cn: login?.values.cn.get("title"), tw: login?.values.tw.get("title") };
})();

/** Keys that would show when a text is missing everywhere (`messages` falls back to the key). */
const rawKeys = new Set(
  tables.flatMap((t) => [...t.values.en.keys()].filter((k) => /[a-z][A-Z]|_/.test(k) && k.length > 4)),
);

/**
 * The visible texts of the page (text nodes, and the aria-label and placeholder attributes), trimmed, minus
 * code, pre and form values: what a person reads or hears. Collapsed `<details>` bodies are not visible.
 */
const visibleTexts = `(() => {
  const out = [];
  const skip = (el) => !el || el.closest("code, pre, script, style, textarea, select, .raw-json") || !el.checkVisibility();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const s = n.nodeValue.trim();
    if (s && !skip(n.parentElement)) out.push(s);
  }
  for (const el of document.querySelectorAll("[aria-label], [placeholder]")) {
    if (skip(el)) continue;
    for (const a of ["aria-label", "placeholder"]) if (el.getAttribute(a)) out.push(el.getAttribute(a).trim());
  }
  return out;
})()`;

describe("every page in zh-CN and zh-TW", () => {
  let d: Dashboard;
  const site = loopbackSite();
  beforeAll(async () => {
    await site.start();
    d = await startDashboard({ form: "b" });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    await site.stop();
  });

  it("shows no English-only text and no raw key on any page", async () => {
    const page = await d.page();
    const token = await signIn(page, d.url, "locales@example.com");
    const api = apiAs(d.url, token);
    const monitor = await api("POST", "/v1/monitors", {
      name: "shop",
      type: "http",
      url: `${site.url}/`,
      interval: 60,
    });
    await api("POST", "/v1/account/api-keys", { name: "ci" });
    const channel = await api("POST", "/v1/alert-channels", {
      name: "hook",
      type: "webhook",
      config: { url: `${site.url}/hook`, secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` },
    });
    await api("POST", "/v1/alert-policies", {
      name: "on-call",
      monitor_id: monitor.id,
      channel_ids: [channel.id],
    });
    const task = await api("POST", "/v1/probe/ping", { host: "127.0.0.1", count: 1 });
    // A port nothing listens on: the node's failure, in words.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await api("POST", "/v1/probe/tcp", { host: "127.0.0.1", port });

    const visits: [pattern: string, hash: string][] = [
      ["/", "#/"],
      ["/probe", "#/probe"],
      ["/tasks/:id", `#/tasks/${task.task_id as string}`],
      ["/tasks/:id", `#/tasks/${refused.task_id as string}`],
      ["/lookups", "#/lookups?tab=ip&q=192.0.2.1"],
      ["/keys", "#/keys"],
      ["/monitors", "#/monitors"],
      ["/monitors/:id", `#/monitors/${monitor.id as string}`],
      ["/alerts", "#/alerts"],
      ["/account", "#/account"],
      ["/password", "#/password"],
      ["/verify-email", "#/verify-email"],
      ["/reset-password", "#/reset-password"],
      ["/login", "#/login"],
    ];
    // Each page main.tsx routes is visited (a route added there needs its visit here).
    expect(routed.filter((p) => !visits.some((v) => v[0] === p))).toEqual([]);

    for (const locale of ["cn", "tw"] as const) {
      const english = englishOnly(locale);
      // As a person does: the shell's language menu (kept for the next visits).
      await page.goto(`${d.url}/#/`);
      await page.reload(); // the session signIn stored, read as the app starts
      await page.selectOption("#lang", locale);
      for (const [pattern, hash] of visits.filter((v) => routed.includes(v[0]))) {
        // The sign-in page is for the signed-out: sign out for it last, and back in for the next locale.
        if (pattern === "/login") await page.evaluate(`localStorage.removeItem("vantage.token")`);
        await page.goto(`${d.url}/${hash}`);
        if (pattern === "/login") await page.reload();
        await page.locator("main h1").first().waitFor({ timeout: 10_000 });
        await expect
          .poll(() => page.locator("main [aria-busy=true]").count(), { timeout: 10_000, interval: 50 })
          .toBe(0);
        if (!["/login", "/verify-email", "/reset-password"].includes(pattern))
          expect(await page.locator("main h1").first().textContent(), `${locale} ${pattern}`).not.toBe(
            signInTitle[locale],
          );
        const texts = (await page.evaluate(visibleTexts)) as string[];
        const wrong = texts.filter(
          (s) => english.has(s.replace(/[:：]$/, "")) || rawKeys.has(s) || (stillEnglish(s) && !isData(s)),
        );
        expect(wrong, `${locale} ${pattern}`).toEqual([]);
        if (pattern === "/login")
          await page.evaluate(`localStorage.setItem("vantage.token", ${JSON.stringify(token)})`);
      }
    }

    await page.goto(`${d.url}/#/tasks/${refused.task_id as string}`);
    await page.locator(".node-error").first().waitFor();
    expect(await page.locator(".node-error").first().textContent()).toBe("連線被拒絕");

    // A refused registration (tw, signed out): a sentence for the code, and the password's problem by the
    // password field, once, in words.
    await page.goto(`${d.url}/#/login`);
    const register = page.getByRole("form", { name: "註冊帳號" });
    await register.getByLabel("電子郵件").fill("short@example.com");
    await register.getByLabel(/^密碼/).fill("short");
    await register.getByRole("button", { name: "註冊" }).click();
    await register.getByRole("alert").waitFor();
    expect(await register.locator('[data-field-error="body.password"]').textContent()).toBe("至少 8 個字元");
    // biome-ignore lint/performance/useDomNodeTextContent: what is on screen, not the folded technical details
    const shown = await register.getByRole("alert").innerText();
    expect(shown).toContain("輸入的內容有誤。");
    expect(shown).not.toContain("must be at least");
    expect(await register.getByTestId("error-details").count()).toBe(0);
    expect(await register.getByLabel(/^密碼/).getAttribute("aria-describedby")).toBe("err-body-password");

    // The monitor form (tw, signed in again): a target the API refuses is answered by the target field.
    await page.evaluate(`localStorage.setItem("vantage.token", ${JSON.stringify(token)})`);
    await page.goto(`${d.url}/#/monitors`);
    await page.reload();
    const create = page.getByRole("form", { name: "建立監控" });
    await create.locator('input[name="target"]').fill("ftp://example.com/");
    await create.locator('input[name="name"]').fill("ftp");
    await create.locator('button[type="submit"]').click();
    const byTarget = create.locator('[data-field-error="body.target"]');
    await byTarget.waitFor();
    expect(await byTarget.textContent()).toMatch(/[\u4e00-\u9fff]/);
    expect(await create.getByTestId("error-details").count()).toBe(0);
    expect(page.outside).toEqual([]);
    expect(page.errors.filter((e) => !/status of 40[04]/.test(e))).toEqual([]);
  });
});
