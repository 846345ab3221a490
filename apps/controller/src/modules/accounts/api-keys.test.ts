import { beforeAll, describe, expect, it } from "vitest";
import { bearer, issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { hashSecret } from "./secrets.js";

describe.each(dbKinds)("API keys on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form);
    });
    const prefix = form === "a" ? "sk_live_" : "vantage_live_";
    const listOf = (body: { data: Record<string, unknown> }) =>
      (form === "a" ? body.data.api_keys : body.data.items) as Record<string, unknown>[];

    it("creates a key shown once, stores only its SHA-256 and lists it without the secret", async () => {
      const u = await newUser(t, "keys");
      const created = await t.call("POST", "/v1/account/api-keys", {
        headers: u.headers,
        body: { name: "ci" },
      });
      expect(created.status).toBe(201);
      const { id, key, name } = created.body.data;
      expect(id).toMatch(/^key_/);
      expect(name).toBe("ci");
      expect(key).toMatch(new RegExp(`^${prefix}[0-9A-Za-z]{43}$`));

      const stored = await t.db.kysely
        .selectFrom("api_keys")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(stored.key_hash).toBe(hashSecret(key));
      expect(JSON.stringify(stored)).not.toContain(key.slice(prefix.length + 6));

      const list = await t.call("GET", "/v1/account/api-keys", { headers: u.headers });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain(key);
      const items = listOf(list.body);
      expect(items).toHaveLength(1);
      const shown = items[0]!;
      expect(shown.id).toBe(id);
      expect(shown[form === "a" ? "key_prefix" : "prefix"]).toBe(key.slice(0, prefix.length + 6));
      if (form === "a") {
        expect(shown.scopes).toEqual(["read", "write"]);
        expect(list.body.data).toMatchObject({ total: 1, limit: 20, offset: 0 });
      }
    });

    it("authenticates with the key as the form allows, and records last_used_at", async () => {
      const u = await newUser(t, "use");
      const created = await t.call("POST", "/v1/account/api-keys", {
        headers: u.headers,
        body: { name: "use" },
      });
      const key = created.body.data.key as string;
      const res = await t.call("GET", "/v1/account/profile", { headers: keyHeaders(form, key) });
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(u.userId);
      const viaBearer = await t.call("GET", "/v1/account/profile", { headers: bearer(key) });
      expect(viaBearer.status).toBe(200);
      const list = await t.call("GET", "/v1/account/api-keys", { headers: u.headers });
      expect(listOf(list.body)[0]!.last_used_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/));
    });

    if (form === "a") {
      it("ignores X-API-Key in form A (401), and a form B key prefix is not a form A credential", async () => {
        const u = await newUser(t, "xkey");
        const created = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "x" },
        });
        const res = await t.call("GET", "/v1/account/profile", {
          headers: { "x-api-key": created.body.data.key },
        });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        const foreign = await t.call("GET", "/v1/account/profile", {
          headers: bearer(`vantage_live_${"A".repeat(43)}`),
        });
        expect(foreign.status).toBe(401);
      });

      it("grants read+write when scopes are omitted or [], and a read-only key gets 403 on writes", async () => {
        const u = await newUser(t, "scopes");
        const empty = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "empty", scopes: [] },
        });
        expect(empty.body.data.scopes).toEqual(["read", "write"]);
        const ro = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "ro", scopes: ["read"], expires_days: 1 },
        });
        expect(ro.status).toBe(201);
        expect(ro.body.data.scopes).toEqual(["read"]);
        const roHeaders = bearer(ro.body.data.key);
        expect((await t.call("GET", "/v1/account/profile", { headers: roHeaders })).status).toBe(200);
        const write = await t.call("PATCH", "/v1/account/profile", {
          headers: roHeaders,
          body: { display_name: "x" },
        });
        expect(write.status).toBe(403);
        expect(write.body.error.code).toBe("insufficient_scope");
        const wo = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "wo", scopes: ["write"] },
        });
        const read = await t.call("GET", "/v1/account/profile", { headers: bearer(wo.body.data.key) });
        expect(read.status).toBe(403);
        expect(read.body.error.code).toBe("insufficient_scope");
      });

      it("sets expiry from expires_days (default 90) and validates it 1–90", async () => {
        const u = await newUser(t, "expiry");
        const def = await t.call("POST", "/v1/account/api-keys", { headers: u.headers, body: { name: "d" } });
        const days = (Date.parse(def.body.data.expires_at) - Date.now()) / 86_400_000;
        expect(days).toBeGreaterThan(89.9);
        expect(days).toBeLessThanOrEqual(90);
        for (const bad of [0, 91, 1.5]) {
          const res = await t.call("POST", "/v1/account/api-keys", {
            headers: u.headers,
            body: { name: "bad", expires_days: bad },
          });
          expect(res.status).toBe(400);
          expect(res.body.error.details[0].path).toBe("body.expires_days");
        }
        const unknownScope = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "bad", scopes: ["admin"] },
        });
        expect(unknownScope.status).toBe(400);
      });

      it("pages the list with limit and offset", async () => {
        const u = await newUser(t, "paging");
        for (const n of ["k1", "k2", "k3"]) {
          await t.call("POST", "/v1/account/api-keys", { headers: u.headers, body: { name: n } });
        }
        const page = await t.call("GET", "/v1/account/api-keys?limit=2&offset=1", { headers: u.headers });
        expect(page.body.data).toMatchObject({ total: 3, limit: 2, offset: 1 });
        expect(page.body.data.api_keys.map((k: { name: string }) => k.name)).toEqual(["k2", "k1"]);
        const bad = await t.call("GET", "/v1/account/api-keys?limit=101", { headers: u.headers });
        expect(bad.status).toBe(400);
        expect(bad.body.error.details[0].path).toBe("query.limit");
      });

      it("manages personal access tokens (vantage_pat_…) under /v1/account/tokens", async () => {
        const u = await newUser(t, "pat");
        const created = await t.call("POST", "/v1/account/tokens", {
          headers: u.headers,
          body: { name: "laptop", scopes: ["read"] },
        });
        expect(created.status).toBe(201);
        expect(created.body.data.id).toMatch(/^pat_/);
        const token = created.body.data.token as string;
        expect(token).toMatch(/^vantage_pat_[0-9A-Za-z]{43}$/);
        expect((await t.call("GET", "/v1/account/profile", { headers: bearer(token) })).status).toBe(200);
        expect((await t.call("GET", "/v1/account/profile", { headers: { "x-api-key": token } })).status).toBe(
          401,
        );
        const list = await t.call("GET", "/v1/account/tokens", { headers: u.headers });
        expect(list.body.data).toMatchObject({ total: 1, limit: 20, offset: 0 });
        expect(list.body.data.tokens[0]).toMatchObject({ id: created.body.data.id, scopes: ["read"] });
        // A token is not an API key: each list and delete route sees only its own kind.
        expect((await t.call("GET", "/v1/account/api-keys", { headers: u.headers })).body.data.total).toBe(0);
        const wrongKind = await t.call("DELETE", `/v1/account/api-keys/${created.body.data.id}`, {
          headers: u.headers,
        });
        expect(wrongKind.status).toBe(404);
        const del = await t.call("DELETE", `/v1/account/tokens/${created.body.data.id}`, {
          headers: u.headers,
        });
        expect(del.status).toBe(200);
        expect((await t.call("GET", "/v1/account/profile", { headers: bearer(token) })).status).toBe(401);
      });
    } else {
      it("accepts the key as X-API-Key or Bearer, and refuses a malformed X-API-Key", async () => {
        const u = await newUser(t, "xkey");
        const bad = await t.call("GET", "/v1/account/profile", { headers: { "x-api-key": "sk_live_nope" } });
        expect(bad.status).toBe(401);
        expect(bad.headers.get("www-authenticate")).toMatch(/^Bearer/);
        const created = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "b" },
        });
        expect(created.body.data).not.toHaveProperty("scopes");
        expect(created.body.data.expires_at).toBeNull();
        const unknownField = await t.call("POST", "/v1/account/api-keys", {
          headers: u.headers,
          body: { name: "b", scopes: ["read"] },
        });
        expect(unknownField.status).toBe(400);
        expect(unknownField.body.error.code).toBe("unknown_field");
      });

      it("has no personal access token routes", async () => {
        const u = await newUser(t, "nopat");
        const res = await t.call("POST", "/v1/account/tokens", { headers: u.headers, body: { name: "x" } });
        expect(res.status).toBe(404);
      });

      it("enforces scopes of a read-only key here too (403 insufficient_scope)", async () => {
        const u = await newUser(t, "robe");
        const ro = await issueKey(t, u.userId, { scopes: ["read"] });
        expect(
          (await t.call("GET", "/v1/account/api-keys", { headers: keyHeaders(form, ro.secret) })).status,
        ).toBe(200);
        const res = await t.call("POST", "/v1/account/api-keys", {
          headers: keyHeaders(form, ro.secret),
          body: { name: "x" },
        });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("insufficient_scope");
      });
    }

    it("DELETE revokes a key at once (401 afterwards); deleting it again is 404", async () => {
      const u = await newUser(t, "revoke");
      const created = await t.call("POST", "/v1/account/api-keys", {
        headers: u.headers,
        body: { name: "gone" },
      });
      const headers = keyHeaders(form, created.body.data.key);
      expect((await t.call("GET", "/v1/account/profile", { headers })).status).toBe(200); // now cached
      const del = await t.call("DELETE", `/v1/account/api-keys/${created.body.data.id}`, {
        headers: u.headers,
      });
      expect(del.status).toBe(200);
      expect(del.body.data).toBeNull();
      const after = await t.call("GET", "/v1/account/profile", { headers });
      expect(after.status).toBe(401);
      expect(after.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(listOf((await t.call("GET", "/v1/account/api-keys", { headers: u.headers })).body)).toHaveLength(
        0,
      );
      const again = await t.call("DELETE", `/v1/account/api-keys/${created.body.data.id}`, {
        headers: u.headers,
      });
      expect(again.status).toBe(404);
    });

    it("refuses an expired key with 401", async () => {
      const u = await newUser(t, "expired");
      const k = await issueKey(t, u.userId, { expiresDays: 1 });
      await t.db.kysely
        .updateTable("api_keys")
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where("id", "=", k.id)
        .execute();
      const res = await t.call("GET", "/v1/account/profile", { headers: keyHeaders(form, k.secret) });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    });

    it("refuses an unknown key of the right shape with 401", async () => {
      const res = await t.call("GET", "/v1/account/profile", {
        headers: keyHeaders(form, `${prefix}${"x".repeat(43)}`),
      });
      expect(res.status).toBe(401);
    });

    it("logout with an API key is refused (only sessions log out)", async () => {
      const u = await newUser(t, "keylogout");
      const k = await issueKey(t, u.userId);
      const res = await t.call("POST", "/v1/auth/logout", { headers: keyHeaders(form, k.secret) });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    });
  });
});
