import { describe, expect, it } from "vitest";
import { contractCheck } from "./contract-check.js";
import { checkAnswer } from "./test-app.js";
import { useTestDb } from "./use-test-db.js";

describe("answers are checked against the OpenAPI document", () => {
  const db = useTestDb("pglite");

  it("names a field the document does not declare, and passes what it declares", () => {
    const check = contractCheck(db.app("b").app).check;
    const base = {
      id: "usr_1",
      email: "a@example.com",
      display_name: null,
      plan: "free",
      email_verified: true,
    };
    expect(check("GET", "/v1/account/profile", 200, { data: base, request_id: "r" })).toBeNull();
    expect(
      check("GET", "/v1/account/profile", 200, { data: { ...base, extra: 1 }, request_id: "r" }),
    ).toMatch(/undocumented field data\.extra/);
  });

  it("takes any documented error, and holds every error answer to the envelope", () => {
    const check = contractCheck(db.app("a").app).check;
    const envelope = { error: { code: "unauthorized", message: "no" }, request_id: "r" };
    expect(check("GET", "/v1/account/profile", 401, envelope)).toBeNull();
    expect(check("GET", "/v1/account/profile", 418, envelope)).toBeNull();
    expect(check("GET", "/v1/account/profile", 401, { error: "no" })).toMatch(/field error/);
  });

  it("leaves routes the document does not hold alone", () => {
    const check = contractCheck(db.app("a").app).check;
    expect(check("GET", "/v1/openapi.json", 200, { anything: true })).toBeNull();
    expect(check("GET", "/nowhere", 404, { anything: true })).toBeNull();
  });

  it("checks a controller running elsewhere (the e2e suites' call) against its form's document", () => {
    const task = (extra: Record<string, unknown>) => ({ data: { id: "t", ...extra }, request_id: "r" });
    // A profile answer missing its fields and carrying a planted one fails, naming where.
    expect(() => checkAnswer("b", "GET", "/v1/account/profile", 200, task({ planted: 1 }))).toThrow(
      /GET \/v1\/account\/profile → 200: .*data/,
    );
    expect(() => checkAnswer("a", "GET", "/v1/account/profile", 401, { error: "no" })).toThrow(/field error/);
    expect(() =>
      checkAnswer("a", "GET", "/v1/account/profile", 401, {
        error: { code: "unauthorized", message: "no" },
        request_id: "r",
      }),
    ).not.toThrow();
  });
});
