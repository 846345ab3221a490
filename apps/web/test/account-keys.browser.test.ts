import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * Signing up and in through the login page, an API key's life on the keys page (shown once, listed by
 * its prefix, revoked and then refused by the API), and the plan page without billing configured.
 */

/** The browser's own log line for an answer the test provoked on purpose (a 401, a 400, a 503). */
const expected =
  (...statuses: number[]) =>
  (e: string) =>
    !statuses.some((s) =>
      e.startsWith(`Failed to load resource: the server responded with a status of ${s}`),
    );

describe.each(["a", "b"] as const)("account pages, Form %s", (form) => {
  let d: Dashboard;
  const email = `keys-${form}@example.com`;
  const password = "correct horse battery";
  const keyPrefix = form === "a" ? "sk_live_" : "vantage_live_";
  beforeAll(async () => {
    d = await startDashboard({ form });
  }, 120_000);
  afterAll(() => d?.stop());

  it("registers and signs in through the page's forms; a key is shown once, listed by prefix, and revoked", async () => {
    const page = await d.page();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: d.url });
    await page.goto(`${d.url}/#/login`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();

    // Register: a short password is refused, what is wrong said by the field, then the account is made.
    const register = page.getByRole("form", { name: "Create an account" });
    await register.getByLabel("Email").fill(email);
    await register.getByLabel(/^Password/).fill("short");
    await register.getByRole("button", { name: "Create account" }).click();
    await register.locator('[data-field-error="body.password"]').getByText("at least 8 characters").waitFor();
    expect(await register.getByLabel(/^Password/).getAttribute("aria-invalid")).toBe("true");
    await register.getByLabel(/^Password/).fill(password);
    await register.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/monitors");

    // Sign out; the keys page asks to sign in; a wrong password is a 401 in words; then in, and back.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.goto(`${d.url}/#/keys`);
    const login = page.getByRole("form", { name: "Sign in" });
    await login.getByLabel("Email").fill(email);
    await login.getByLabel("Password").fill("not the password");
    await login.getByRole("button", { name: "Sign in" }).click();
    await login.getByText("Wrong email or password.").waitFor();
    await login.getByLabel("Password").fill(password);
    await login.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/keys");
    const token = (await page.evaluate(`localStorage.getItem("vantage.token")`)) as string;
    expect(token).toMatch(/^ey/);

    // Create a key: its secret is shown once, with the form's prefix, and copies to the clipboard.
    const create = page.getByRole("form", { name: "Create a key" });
    await create.getByLabel("Name").fill("ci-deploy");
    if (form === "a") {
      expect(await create.getByLabel("read (GET requests)").isChecked()).toBe(true);
      expect(await create.getByLabel("write (everything else)").isChecked()).toBe(true);
    }
    await create.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-secret");
    await shown.getByText("only time it is shown").waitFor();
    const secret = await shown.getByLabel("Secret key").inputValue();
    expect(secret.startsWith(keyPrefix)).toBe(true);
    await shown.getByRole("button", { name: "Copy" }).click();
    await shown.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);

    // The API lists the key by the prefix the page shows, and the key works.
    const listed = (await (
      await fetch(`${d.url}/v1/account/api-keys`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { data: { items?: { prefix: string }[]; api_keys?: { key_prefix: string }[] } };
    const prefix = form === "a" ? listed.data.api_keys![0]!.key_prefix : listed.data.items![0]!.prefix;
    expect(prefix.startsWith(keyPrefix)).toBe(true);
    expect(secret.startsWith(prefix)).toBe(true);
    const withKey = (): Record<string, string> =>
      form === "a" ? { authorization: `Bearer ${secret}` } : { "x-api-key": secret };
    expect((await fetch(`${d.url}/v1/account/usage`, { headers: withKey() })).status).toBe(200);

    // After a reload the secret is gone for good; the list shows the prefix.
    await page.reload();
    const row = page.getByRole("row", { name: /ci-deploy/ });
    await row.getByText(`${prefix}…`).waitFor();
    expect(await page.getByTestId("new-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Revoke asks first; then the row is gone and the API refuses the key.
    await page.getByRole("button", { name: "Revoke ci-deploy" }).click();
    const confirm = page.getByRole("group", { name: /Revoke ci-deploy\?/ });
    // By keyboard: the question takes the focus, Escape gives it back to the button; Enter confirms. The
    // focus moves after the question renders: wait for it before pressing keys.
    const focused = () => page.evaluate("document.activeElement.textContent");
    await expect.poll(focused).toBe("Revoke");
    await page.keyboard.press("Escape");
    expect(await confirm.count()).toBe(0);
    await expect
      .poll(() => page.evaluate(`document.activeElement.getAttribute("aria-label")`))
      .toBe("Revoke ci-deploy");
    await page.keyboard.press("Enter");
    await confirm.waitFor();
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("button", { name: "Revoke ci-deploy" }).click();
    await confirm.waitFor();
    await expect.poll(focused).toBe("Revoke");
    await page.keyboard.press("Enter");
    await page.getByText("Key ci-deploy revoked.").waitFor();
    await page.getByText("No keys yet.").waitFor();
    expect(await row.count()).toBe(0);
    expect((await fetch(`${d.url}/v1/account/usage`, { headers: withKey() })).status).toBe(401);

    expect(page.outside).toEqual([]);
    expect(page.errors.filter(expected(400, 401))).toEqual([]);
  });

  it("MCP tokens (Form A only): made on the keys page, shown once, work at /v1/mcp only, revoked", async () => {
    const page = await d.page();
    const token = await signIn(page, d.url, `mcp-${form}@example.com`);
    await page.goto(`${d.url}/#/keys`);
    await page.reload();
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    if (form === "b") {
      // Form B has no MCP tokens: its MCP clients use an API key.
      expect(await page.getByRole("heading", { name: "MCP tokens" }).count()).toBe(0);
      return;
    }
    const section = page.getByRole("region", { name: "MCP tokens" });
    await section.getByText(`${d.url}/v1/mcp`, { exact: false }).waitFor();
    await section.getByText("No MCP tokens yet.").waitFor();
    const create = section.getByRole("form", { name: "Create an MCP token" });
    await create.getByLabel("Name").fill("claude-desktop");
    await create.getByRole("button", { name: "Create token" }).click();
    const secret = await section.getByTestId("new-secret").getByLabel("Secret key").inputValue();
    expect(secret).toMatch(/^vantage_mcp_/);
    const row = section.getByRole("row", { name: /claude-desktop/ });
    await row.getByText(/^vantage_mcp_\w+…$/).waitFor();
    // The API keys list is not where it shows up.
    expect(await page.getByText("No keys yet.").count()).toBe(1);

    const mcp = () =>
      fetch(`${d.url}/v1/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const tools = await mcp();
    expect(tools.status).toBe(200);
    expect(await tools.text()).toContain("lookup_ssl");
    const elsewhere = await fetch(`${d.url}/v1/account/usage`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(elsewhere.status).toBe(401);
    const listed = await fetch(`${d.url}/v1/account/mcp-tokens`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await listed.json()) as { data: { total: number } }).data.total).toBe(1);

    await row.getByRole("button", { name: "Revoke claude-desktop" }).click();
    await section
      .getByRole("group", { name: /Revoke claude-desktop\?/ })
      .getByRole("button", { name: "Revoke" })
      .click();
    await section.getByText("MCP token claude-desktop revoked.").waitFor();
    await section.getByText("No MCP tokens yet.").waitFor();
    expect((await mcp()).status).toBe(401);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });

  it("the plan page shows plan free, this period's use, and that billing is not enabled (on a phone too)", async () => {
    const page = await d.page({ width: 390, height: 844 });
    await signIn(page, d.url, `plan-${form}@example.com`);
    await page.goto(`${d.url}/#/monitors`);
    await page.reload(); // the shell reads the session signIn stored when the page loads
    await page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();
    await page.getByRole("link", { name: "Plan & usage" }).click();
    await page.getByRole("heading", { name: "Plan & usage", level: 1 }).waitFor();

    await page.locator("[data-plan=free]").getByText("Free", { exact: true }).waitFor();
    expect(await page.locator("[data-plan=free]").textContent()).toBe("Free"); // not "Free free"
    for (const family of ["probes", "lookups", "reputation"])
      await page.locator(`[data-family=${family}]`).waitFor();
    // Units in words, not the API's `node-probes`.
    await page
      .locator("[data-family=probes]")
      .getByText(/probes on nodes this period/)
      .waitFor();
    await page
      .locator("[data-family=reputation]")
      .getByText(/reputation checks this period/)
      .waitFor();
    // The default plan's limits: lookups per minute for this sign-in, per day for the account.
    await page.getByRole("meter", { name: "per minute (for this sign-in)" }).first().waitFor();
    await page.getByRole("meter", { name: "per day (for the account)" }).first().waitFor();
    await page.locator("[data-usage='API keys']").getByText("0 of 5 used").waitFor();
    await page.locator("[data-subscription-status=none]").waitFor();
    await page.getByText("No invoices yet.").waitFor();

    // Billing off: the page says how plans work here, and offers no Subscribe button that can only fail.
    await page
      .getByRole("status")
      .getByText(/Plans are not sold on this server/)
      .waitFor();
    expect(await page.getByRole("button", { name: /Subscribe/ }).count()).toBe(0);
    expect(await page.locator(".error").count()).toBe(0);

    // Nothing wider than the phone's screen; the same page in Chinese.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.selectOption("#lang", "cn");
    await page.getByRole("heading", { name: "套餐与用量", level: 1 }).waitFor();
    await page.getByText("免费版").waitFor();
    await page
      .locator("[data-family=probes]")
      .getByText(/次节点探测/)
      .waitFor();
    await page.getByText(/本服务器不出售套餐/).waitFor();
    await page.selectOption("#lang", "tw");
    await page.getByRole("heading", { name: "方案與用量", level: 1 }).waitFor();

    expect(page.outside).toEqual([]);
    expect(page.errors.filter(expected(503))).toEqual([]);
  });
});
