import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * Deleting the account from the Account page, on a phone-sized screen: the button waits for the address,
 * a wrong password is said in words, then the account goes, the page signs out and the sign-in page says
 * why; the old password no longer signs in and the address can register again.
 */

/** The browser's own log line for an answer the test provoked on purpose (the wrong password's 400). */
const expected = (e: string) =>
  !e.startsWith("Failed to load resource: the server responded with a status of 400");

describe.each(["a", "b"] as const)("deleting the account in the dashboard, Form %s", (form) => {
  let d: Dashboard;
  const email = `leaving-${form}@example.com`;
  const password = "correct horse battery";
  beforeAll(async () => {
    d = await startDashboard({ form });
  }, 120_000);
  afterAll(() => d?.stop());

  it("asks for the password and the address, deletes, and shows the sign-in page with a notice", async () => {
    const page = await d.page({ width: 390, height: 844 });
    await signIn(page, d.url, email, password);
    await page.goto(`${d.url}/#/account`);
    await page.reload(); // the shell reads the session signIn stored when the page loads
    const card = page.getByRole("form", { name: "Delete account" });
    await card.waitFor();
    const button = card.getByRole("button", { name: "Delete my account" });
    // Nothing sticks out of a phone's width.
    const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);

    await card.getByLabel("Password").fill("not the password");
    expect(await button.isDisabled()).toBe(true);
    await card.getByLabel(/Type your email address/).fill(email.toUpperCase());
    await card.getByText("Type the email address of this account exactly.").waitFor();
    await card.getByLabel(/Type your email address/).fill(email);
    await button.click();
    await card.getByText("The password is wrong.").waitFor();

    await card.getByLabel("Password").fill(password);
    await button.click();
    await page.getByTestId("session-notice").getByText("Your account has been deleted").waitFor();
    expect(new URL(page.url()).hash).toBe("#/login?deleted=1");
    expect(await page.evaluate(`localStorage.getItem("vantage.token")`)).toBeNull();

    const login = await fetch(`${d.url}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(401);
    const again = await fetch(`${d.url}/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(again.status).toBe(201);
    expect(page.errors.filter(expected)).toEqual([]);
    expect(page.outside).toEqual([]);
  });
});
