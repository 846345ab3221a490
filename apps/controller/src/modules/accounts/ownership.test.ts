import { createRoute, z } from "@hono/zod-openapi";
import { pino } from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { requireAuth, requirePrincipal } from "../../http/auth.js";
import { installCore } from "../../http/core.js";
import { envelope, ok } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import { handleError } from "../../http/errors-handler.js";
import { createRouter } from "../../http/router.js";
import { authSecurity } from "../../http/security.js";
import { issueKey, keyHeaders, newUser, type TestUser } from "../../testing/accounts.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

describe.each(dbKinds)("ownership on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    let a: TestUser;
    let b: TestUser;
    beforeAll(async () => {
      t = db.app(form);
      a = await newUser(t, "alice");
      b = await newUser(t, "bob");
    });

    it("user B can neither see, use nor delete user A's API keys (404), and A's key keeps working", async () => {
      const created = await t.call("POST", "/v1/account/api-keys", {
        headers: a.headers,
        body: { name: "alice's" },
      });
      const aKey = created.body.data;
      const bList = await t.call("GET", "/v1/account/api-keys", { headers: b.headers });
      expect(bList.text).not.toContain(aKey.id);
      const del = await t.call("DELETE", `/v1/account/api-keys/${aKey.id}`, { headers: b.headers });
      expect(del.status).toBe(404);
      expect(del.body.error.code).toBe("not_found");
      const unknown = await t.call("DELETE", "/v1/account/api-keys/key_doesnotexist", { headers: b.headers });
      expect(unknown.body.error).toEqual(del.body.error);
      const aProfile = await t.call("GET", "/v1/account/profile", { headers: keyHeaders(form, aKey.key) });
      expect(aProfile.body.data.id).toBe(a.userId);
    });

    it("a profile is always the caller's own: B's change never touches A", async () => {
      await t.call("PATCH", "/v1/account/profile", { headers: b.headers, body: { display_name: "Bob" } });
      const aProfile = await t.call("GET", "/v1/account/profile", { headers: a.headers });
      expect(aProfile.body.data.display_name).toBeNull();
      const bProfile = await t.call("GET", "/v1/account/profile", { headers: b.headers });
      expect(bProfile.body.data).toMatchObject({ id: b.userId, display_name: "Bob" });
    });

    if (form === "a") {
      it("user B cannot see or delete user A's personal access tokens (404)", async () => {
        const created = await t.call("POST", "/v1/account/tokens", {
          headers: a.headers,
          body: { name: "cli" },
        });
        const bList = await t.call("GET", "/v1/account/tokens", { headers: b.headers });
        expect(bList.body.data.total).toBe(0);
        const del = await t.call("DELETE", `/v1/account/tokens/${created.body.data.id}`, {
          headers: b.headers,
        });
        expect(del.status).toBe(404);
      });
    }

    it("the exported guard: another account's resource is 404, the owner's is served", async () => {
      // A module of its own, built the way other modules use requireAuth (with the process's one
      // authenticator, as the composition root hands it out) and notFound for another account's row.
      const authenticator = t.modules.accounts.service.authenticator;
      const notes = new Map([["note_1", { id: "note_1", owner_id: a.userId, text: "alice's note" }]]);
      const app = createRouter();
      installCore(app, {
        log: pino({ level: "silent" }),
        accessLog: false,
        trustedProxies: [],
        bodyLimit: 1024,
      });
      const route = createRoute({
        method: "get",
        path: "/v1/notes/{id}",
        security: authSecurity(form),
        middleware: requireAuth(authenticator),
        request: { params: z.object({ id: z.string() }) },
        responses: {
          200: {
            description: "A note",
            content: {
              "application/json": { schema: envelope(z.object({ id: z.string(), text: z.string() })) },
            },
          },
        },
      });
      app.openapi(route, (c) => {
        const note = notes.get(c.req.valid("param").id);
        if (note?.owner_id !== requirePrincipal(c).userId) throw notFound("note");
        return ok(c, { id: note.id, text: note.text }, 200);
      });
      app.onError(handleError);

      const bKey = await issueKey(t, b.userId);
      const asA = await app.request("/v1/notes/note_1", { headers: a.headers });
      expect(asA.status).toBe(200);
      for (const headers of [b.headers, keyHeaders(form, bKey.secret)]) {
        const asB = await app.request("/v1/notes/note_1", { headers });
        expect(asB.status).toBe(404);
        expect(((await asB.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
      expect((await app.request("/v1/notes/note_1")).status).toBe(401);
    });
  });
});
