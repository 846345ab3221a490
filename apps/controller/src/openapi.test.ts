import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forms, makeTestApp, openTestDb, type TestDb } from "./testing/test-app.js";

let testDb: TestDb;
beforeAll(async () => {
  testDb = await openTestDb("pglite");
});
afterAll(async () => {
  await testDb.close();
});

describe.each(forms)("OpenAPI document, form %s", (form) => {
  it("is served at /v1/openapi.json and passes a real OpenAPI 3.1 validator", async () => {
    const t = makeTestApp(testDb, form);
    const res = await t.call("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.title).toContain(`Form ${form.toUpperCase()}`);
    // The validator mutates what it is given: hand it a copy.
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
  });

  it("documents every route the application serves under /v1", async () => {
    const t = makeTestApp(testDb, form);
    const doc = t.openapi() as { paths: Record<string, Record<string, unknown>> };
    const served = t.app.routes
      .filter((r) => r.path.startsWith("/v1/") && r.path !== "/v1/openapi.json" && r.method !== "ALL")
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([^/]+)/g, "{$1}")}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    for (const route of served) expect(documented).toContain(route);
  });

  it("declares the credential schemes of the form", async () => {
    const t = makeTestApp(testDb, form);
    const schemes = (t.openapi() as { components: { securitySchemes: Record<string, unknown> } }).components
      .securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(form === "a" ? ["bearerAuth"] : ["apiKeyAuth", "bearerAuth"]);
  });
});
