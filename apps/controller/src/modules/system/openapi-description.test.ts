import { describe, expect, it } from "vitest";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const stripe = {
  STRIPE_SECRET_KEY: "sk_test_description",
  STRIPE_WEBHOOK_SECRET: "whsec_description",
  STRIPE_PRICE_PRO: "price_pro",
  STRIPE_PRICE_BUSINESS: "price_business",
};

/** The OpenAPI document's description (the docs page shows it first) says what this deployment serves. */
describe.each(forms)("the OpenAPI description, form %s", (form) => {
  const db = useTestDb("pglite");
  const description = async (env: Record<string, string> = {}): Promise<string> => {
    const res = await db.app(form, env).call("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    return res.body.info.description;
  };

  it("names the active form, every section, and links to the docs and the document", async () => {
    const text = await description();
    expect(text).toContain(`**API Form ${form.toUpperCase()}**`);
    expect(text).not.toContain(`API Form ${form === "a" ? "B" : "A"}`);
    for (const section of [
      "probes",
      "nodes",
      "lookups",
      "monitors",
      "alerts",
      "account",
      "billing",
      "operations",
    ]) {
      expect(text).toContain(`- **${section}**`);
    }
    expect(text).toContain("[/docs](/docs)");
    expect(text).toContain("[/v1/openapi.json](/v1/openapi.json)");
  });

  it("without Stripe: billing is described as not set up, its Stripe routes as 503", async () => {
    const text = await description({ STRIPE_SECRET_KEY: stripe.STRIPE_SECRET_KEY });
    expect(text).toMatch(/\*\*billing\*\*: not set up on this deployment/);
    expect(text).toContain("503 `billing_not_configured`");
    expect(text).not.toContain("Stripe Checkout");
  });

  it("with Stripe: billing is offered; with SMTP and a public URL: no word of logged mail, absolute links", async () => {
    const text = await description({
      ...stripe,
      SMTP_URL: "smtp://127.0.0.1:2525",
      VANTAGE_PUBLIC_URL: "https://vantage.example/",
    });
    expect(text).toContain("- **billing**: subscriptions through Stripe Checkout");
    expect(text).not.toContain("billing_not_configured");
    expect(text).not.toContain("sends no email");
    expect(text).toContain("[https://vantage.example/docs](https://vantage.example/docs)");
  });

  it("without SMTP: says mail goes to the server's log", async () => {
    expect(await description()).toContain("sends no email");
  });
});
