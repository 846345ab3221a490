import { beforeAll, describe, expect, it } from "vitest";
import { bearer, issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const DAY_MS = 86_400_000;

/**
 * A credential creates credentials with at most its own scopes and lifetime; a login session (JWT) acts as
 * the user. Form A checks both through its API; Form B's keys come with neither scopes nor expiry in its
 * API, so scoped and expiring Form B keys are issued through the service, as an operator's tools would.
 */
describe.each(dbKinds)("credentials bounded by their creator on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form);
    });
    const expiresAt = (data: { expires_at: string | null }) =>
      data.expires_at === null ? null : Date.parse(data.expires_at);

    if (form === "a") {
      it("a write-only key cannot create a read+write key (403); omitted scopes mean its own", async () => {
        const u = await newUser(t, "wo");
        const wo = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "wo", scopes: ["write"], expires_days: 30 },
        });
        expect(wo.status).toBe(201);
        const woHeaders = bearer(wo.body.data.key);
        for (const path of ["/v1/account/api-keys", "/v1/account/tokens"]) {
          const wider = await t.call("POST", path, {
            headers: woHeaders,
            body: { name: "wider", scopes: ["read", "write"] },
          });
          expect(wider.status, path).toBe(403);
          expect(wider.body.error.code, path).toBe("insufficient_scope");
          expect(wider.body.error.message, path).toMatch(/read/);
          const readOnly = await t.call("POST", path, {
            headers: woHeaders,
            body: { name: "ro", scopes: ["read"] },
          });
          expect(readOnly.status, path).toBe(403);
          for (const body of [{ name: "same" }, { name: "same", scopes: [] }]) {
            const same = await t.call("POST", path, { headers: woHeaders, body });
            expect(same.status, path).toBe(201);
            expect(same.body.data.scopes, path).toEqual(["write"]);
          }
        }
      });

      it("a key cannot outlive its creator: a longer expires_days is 400, omitted is capped", async () => {
        const u = await newUser(t, "life");
        for (const [creatorPath, secretField] of [
          ["/v1/account/api-keys", "key"],
          ["/v1/account/tokens", "token"],
        ] as const) {
          const parent = await t.call("POST", creatorPath, {
            headers: u.headers,
            body: { name: "parent", expires_days: 2 },
          });
          expect(parent.status).toBe(201);
          const parentExpiry = expiresAt(parent.body.data)!;
          const headers = bearer(parent.body.data[secretField]);
          for (const path of ["/v1/account/api-keys", "/v1/account/tokens"]) {
            const longer = await t.call("POST", path, { headers, body: { name: "long", expires_days: 90 } });
            expect(longer.status, `${creatorPath} → ${path}`).toBe(400);
            expect(longer.body.error.code).toBe("validation_error");
            expect(longer.body.error.details[0].path).toBe("body.expires_days");
            expect(longer.body.error.message).toMatch(/at most 1 day/);
            const shorter = await t.call("POST", path, { headers, body: { name: "short", expires_days: 1 } });
            expect(shorter.status).toBe(201);
            expect(expiresAt(shorter.body.data)!).toBeLessThanOrEqual(parentExpiry);
            const defaulted = await t.call("POST", path, { headers, body: { name: "default" } });
            expect(defaulted.status).toBe(201);
            expect(expiresAt(defaulted.body.data)).toBe(parentExpiry);
          }
        }
      });

      it("a login session acts as the user: read+write keys for the full 90 days", async () => {
        const u = await newUser(t, "session");
        const res = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "long", scopes: ["read", "write"], expires_days: 90 },
        });
        expect(res.status).toBe(201);
        expect(res.body.data.scopes).toEqual(["read", "write"]);
        expect(expiresAt(res.body.data)! - Date.now()).toBeGreaterThan(89.9 * DAY_MS);
        const pat = await t.call("POST", "/v1/account/tokens", { headers: u.headers, body: { name: "pat" } });
        expect(expiresAt(pat.body.data)! - Date.now()).toBeGreaterThan(89.9 * DAY_MS);
      });
    }

    it("a write-only key creates only write-only keys", async () => {
      const u = await newUser(t, "wo-service");
      const wo = await issueKey(t, u.userId, { scopes: ["write"] });
      const created = await t.call("POST", "/v1/account/api-keys", {
        headers: keyHeaders(form, wo.secret),
        body: { name: "child" },
      });
      expect(created.status).toBe(201);
      // The child cannot read: it got its creator's scopes, not read+write.
      const read = await t.call("GET", "/v1/account/profile", {
        headers: keyHeaders(form, created.body.data.key),
      });
      expect(read.status).toBe(403);
      expect(read.body.error.code).toBe("insufficient_scope");
    });

    it("an expiring key's child expires with it; a never-expiring key's child need not", async () => {
      const u = await newUser(t, "exp-service");
      const expiring = await issueKey(t, u.userId, { expiresDays: 3 });
      const row = await t.db.kysely
        .selectFrom("api_keys")
        .select("expires_at")
        .where("id", "=", expiring.id)
        .executeTakeFirstOrThrow();
      const parentExpiry = new Date(row.expires_at!).getTime();
      const child = await t.call("POST", "/v1/account/api-keys", {
        headers: keyHeaders(form, expiring.secret),
        body: { name: "child" },
      });
      expect(child.status).toBe(201);
      expect(expiresAt(child.body.data)).toBe(parentExpiry);

      const forever = await issueKey(t, u.userId, { expiresDays: null });
      const free = await t.call("POST", "/v1/account/api-keys", {
        headers: keyHeaders(form, forever.secret),
        body: { name: "free" },
      });
      expect(free.status).toBe(201);
      if (form === "b") expect(free.body.data.expires_at).toBeNull();
      else expect(expiresAt(free.body.data)! - Date.now()).toBeGreaterThan(89.9 * DAY_MS);
    });
  });
});
