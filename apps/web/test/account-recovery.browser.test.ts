import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtp } from "../../controller/src/testing/smtp-server.js";
import { type Dashboard, startDashboard } from "./harness.js";

/**
 * Issue #28 items 1 and 2 as a person meets them: register, verify by the mailed link, a page left open
 * half an hour that still works, sign out with a notice, reset the password by the mailed link, sign in,
 * change the password and come back to the page after signing in again. Mail goes over SMTP to a loopback
 * receiver; the browser's clock is moved forward instead of waiting.
 */

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A message's body with quoted-printable undone (soft line breaks and `=XX` bytes). */
function decoded(raw: string): string {
  const body = raw.replace(/=\r?\n/g, "");
  return Buffer.from(
    body.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");
}

describe("account recovery in the dashboard (Form A)", () => {
  let d: Dashboard;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const email = "recover@example.com";
  const password = "correct horse battery";
  const newPassword = "a better horse battery";

  beforeAll(async () => {
    smtp = await startSmtp();
    const port = await freePort();
    d = await startDashboard({
      form: "a",
      env: { PORT: String(port), VANTAGE_PUBLIC_URL: `http://127.0.0.1:${port}`, SMTP_URL: smtp.url },
    });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    await smtp?.stop();
  });

  /** The link of the newest message to `email` whose link goes to `page`, once it has arrived. */
  async function mailedLink(page: string, seen = 0): Promise<string> {
    const pattern = new RegExp(`${d.url.replace(/[.]/g, "\\.")}/#/${page}\\?token=[^\\s]+`);
    let link: string | undefined;
    await expect
      .poll(
        () => {
          const found = smtp.inbox
            .filter((m) => m.to.includes(email))
            .map((m) => pattern.exec(decoded(m.raw))?.[0])
            .filter((l) => l !== undefined);
          link = found.length > seen ? found.at(-1) : undefined;
          return link;
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBeDefined();
    return link!;
  }

  it("register → verify by link → stay signed in 30 minutes → sign out → reset by link → sign in", async () => {
    const page = await d.page();
    await page.clock.install();
    const token = () => page.evaluate(`localStorage.getItem("vantage.token")`) as Promise<string | null>;

    await page.goto(`${d.url}/#/login`);
    const register = page.getByRole("form", { name: "Create an account" });
    await register.getByLabel("Email").fill(email);
    await register.getByLabel(/^Password/).fill(password);
    await register.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();

    // The refresh credential is a cookie no script can read, sent to the API only, never cross-site.
    const cookie = (await page.context().cookies()).find((c) => c.name === "vantage_refresh");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", secure: false, path: "/v1" });
    expect(await page.evaluate("document.cookie")).not.toContain("vantage_refresh");

    // Verify by the mailed link.
    await page.goto(await mailedLink("verify-email"));
    await page.getByTestId("verified").getByText(`${email} is verified`).waitFor();

    // Left open for 30 minutes: the token (900 s) is renewed with the cookie before the next request.
    await page.goto(`${d.url}/#/keys`);
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    const first = await token();
    await page.clock.fastForward("30:00");
    await page.getByRole("navigation", { name: "main" }).getByRole("link", { name: "Monitors" }).click();
    await page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();
    await expect.poll(token).not.toBe(first);
    const second = await token();
    expect(second).toMatch(/^ey/);
    // A token the server no longer takes (here revoked behind the page's back) is renewed on its 401.
    const revoked = await fetch(`${d.url}/v1/auth/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${second}` },
    });
    expect(revoked.status).toBe(200);
    await page.getByRole("navigation", { name: "main" }).getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    await expect.poll(token).not.toBe(second);
    expect(await page.getByRole("form", { name: "Sign in" }).count()).toBe(0);

    // Sign out: a notice, the way back kept in the address; the cookie is revoked and gone.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByTestId("session-notice").getByText("You are signed out").waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe("#/login?next=/keys");
    await expect
      .poll(async () => (await page.context().cookies()).some((c) => c.name === "vantage_refresh"))
      .toBe(false);
    expect(await token()).toBeNull();

    // Forgot the password: a reset link by mail, a new password, then sign in with it.
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    const ask = page.getByRole("form", { name: "Reset your password" });
    await ask.getByLabel("Email").fill(email);
    await ask.getByRole("button", { name: "Send the link" }).click();
    await page.getByTestId("reset-sent").waitFor();
    await page.goto(await mailedLink("reset-password"));
    const choose = page.getByRole("form", { name: "Set the new password" });
    await choose.getByLabel(/^New password/).fill(newPassword);
    await choose.getByRole("button", { name: "Set the new password" }).click();
    await page.getByTestId("session-notice").getByText("Your password has been changed").waitFor();

    const login = page.getByRole("form", { name: "Sign in" });
    await login.getByLabel("Email").fill(email);
    await login.getByLabel("Password").fill(password);
    await login.getByRole("button", { name: "Sign in" }).click();
    await login.getByText("Wrong email or password.").waitFor();
    await login.getByLabel("Password").fill(newPassword);
    await login.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Monitors", level: 1 }).waitFor();

    // Change the password; sign out there and back in: the page comes back.
    await page.getByRole("link", { name: "Password", exact: true }).click();
    const change = page.getByRole("form", { name: "Change your password" });
    await change.getByLabel("Current password").fill("not it");
    await change.getByLabel(/^New password/).fill(password);
    await change.getByRole("button", { name: "Change password" }).click();
    await change.getByText("The current password is wrong.").waitFor();
    await change.getByLabel("Current password").fill(newPassword);
    await change.getByRole("button", { name: "Change password" }).click();
    await page.getByTestId("password-changed").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await login.getByLabel("Email").fill(email);
    await login.getByLabel("Password").fill(password);
    await login.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Change your password", level: 1 }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/password");

    const expected = (e: string) => !/status of (400|401)/.test(e);
    expect(page.errors.filter(expected)).toEqual([]);
    expect(page.outside).toEqual([]);
  }, 60_000);
});
