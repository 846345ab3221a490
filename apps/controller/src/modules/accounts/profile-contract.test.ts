import { describe, expect, it, vi } from "vitest";
import { bearer, PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import type { TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * The profile views with a field planted wrong while `plant` is set: Form A's `theme` gets a value outside
 * its enum, Form B's `email_verified` is renamed. Every test app's `call` checks answers against the
 * document (testing/contract-check.ts), so the planted view must fail the call that receives it, naming
 * the field.
 */
const plant = vi.hoisted(() => ({ on: false }));
vi.mock("./views.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("./views.js")>();
  return {
    ...real,
    toProfileA: (u: Parameters<typeof real.toProfileA>[0]) =>
      plant.on ? { ...real.toProfileA(u), theme: "sepia" } : real.toProfileA(u),
    toProfileB: (u: Parameters<typeof real.toProfileB>[0]) => {
      const view = real.toProfileB(u);
      if (!plant.on) return view;
      const { email_verified, ...rest } = view;
      return { ...rest, email_verifed: email_verified };
    },
  };
});

describe("a profile view that strays from the OpenAPI document", () => {
  const db = useTestDb("pglite");

  async function profile(t: TestApp) {
    const reg = await t.call("POST", "/v1/auth/register", {
      body: { email: uniqueEmail("contract"), password: PASSWORD },
    });
    expect(reg.status).toBe(201);
    return () => t.call("GET", "/v1/account/profile", { headers: bearer(reg.body.data.access_token) });
  }

  it.each([
    ["a", /field data\.theme: /],
    ["b", /field data\.email_verified: /],
  ] as const)(
    "a planted wrong field in form %s's profile view fails the call, naming it",
    async (form, names) => {
      const t = db.app(form);
      const read = await profile(t);
      expect((await read()).status).toBe(200);
      plant.on = true;
      try {
        await expect(read()).rejects.toThrow(names);
        await expect(read()).rejects.toThrow(/GET \/v1\/account\/profile → 200/);
      } finally {
        plant.on = false;
      }
    },
  );
});
