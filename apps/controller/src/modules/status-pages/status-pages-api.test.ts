import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { dbKinds, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createPage, monitorOf, uniqueSlug } from "./testing/status-api.js";

/** The owner's API of status pages: pages, incidents, maintenance and webhook subscribers; ownership and bounds. */
describe.each(dbKinds)("status pages API on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const sizeKey = form === "a" ? "limit" : "per_page";

    it("creates, reads, lists, changes and deletes a page", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const api = await monitorOf(t, u, "API");
      const web = await monitorOf(t, u, "Web");
      const slug = uniqueSlug("acme");
      const created = await t.call("POST", "/v1/status-pages", {
        headers: u.headers,
        body: {
          slug,
          title: "Acme",
          components: [
            { name: "API", monitor_ids: [api.id] },
            { name: "Web and API", monitor_ids: [web.id, api.id] },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      const p = created.body.data;
      expect(p).toMatchObject({
        slug,
        title: "Acme",
        logo_url: null,
        custom_domain: null,
        auto_incidents: true,
        public_url: `/status/${slug}`,
      });
      expect(p.id).toMatch(/^spg_/);
      const got = await t.call("GET", `/v1/status-pages/${p.id}`, { headers: u.headers });
      expect(got.body.data).toEqual(p);
      const list = await t.call("GET", "/v1/status-pages", { headers: u.headers });
      expect(list.body.data).toEqual({ items: [p], total: 1, page: 1, [sizeKey]: 20 });
      const patched = await t.call("PATCH", `/v1/status-pages/${p.id}`, {
        headers: u.headers,
        body: { title: "Acme Inc.", custom_domain: "Status.Example.COM", auto_incidents: false },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.data).toMatchObject({
        title: "Acme Inc.",
        custom_domain: "status.example.com",
        auto_incidents: false,
      });
      const del = await t.call("DELETE", `/v1/status-pages/${p.id}`, { headers: u.headers });
      expect(del.status).toBe(200);
      expect((await t.call("GET", `/v1/status-pages/${p.id}`, { headers: u.headers })).status).toBe(404);
    });

    it("refuses a taken slug, another account's monitor and bad fields with the field's path", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const other = await newUser(t, "other");
      const theirs = await monitorOf(t, other, "theirs");
      const slug = uniqueSlug();
      await createPage(t, u, { slug, title: "One" });
      const taken = await t.call("POST", "/v1/status-pages", {
        headers: other.headers,
        body: { slug, title: "Two" },
      });
      expect(taken.status).toBe(409);
      expect(taken.body.error).toMatchObject({ code: "conflict", details: [{ path: "body.slug" }] });
      const foreign = await t.call("POST", "/v1/status-pages", {
        headers: u.headers,
        body: { slug: uniqueSlug(), title: "x", components: [{ name: "c", monitor_ids: [theirs.id] }] },
      });
      expect(foreign.status).toBe(400);
      expect(foreign.body.error.details[0].path).toBe("body.components.0.monitor_ids.0");
      const bad = await t.call("POST", "/v1/status-pages", {
        headers: u.headers,
        body: { slug: "Not A Slug", title: "x", logo_url: "javascript:alert(1)" },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
        "body.logo_url",
        "body.slug",
      ]);
      const unknown = await t.call("POST", "/v1/status-pages", {
        headers: u.headers,
        body: { slug: uniqueSlug(), title: "x", extra: 1 },
      });
      expect(unknown.body.error.code).toBe("unknown_field");
    });

    it("another account can neither read nor touch a page, its incidents, maintenance or subscribers", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const other = await newUser(t, "other");
      const p = await createPage(t, u, { slug: uniqueSlug(), title: "Mine" });
      const inc = await t.call("POST", `/v1/status-pages/${p.id}/incidents`, {
        headers: u.headers,
        body: { title: "Outage", message: "Looking" },
      });
      expect(inc.status, inc.text).toBe(201);
      const as = other.headers;
      const tries: [string, string, unknown?][] = [
        ["GET", `/v1/status-pages/${p.id}`],
        ["PATCH", `/v1/status-pages/${p.id}`, { title: "theirs" }],
        ["DELETE", `/v1/status-pages/${p.id}`],
        ["GET", `/v1/status-pages/${p.id}/incidents`],
        ["POST", `/v1/status-pages/${p.id}/incidents`, { title: "x", message: "y" }],
        [
          "POST",
          `/v1/status-pages/${p.id}/incidents/${inc.body.data.id}/updates`,
          { status: "resolved", message: "y" },
        ],
        ["GET", `/v1/status-pages/${p.id}/maintenance`],
        [
          "POST",
          `/v1/status-pages/${p.id}/maintenance`,
          { title: "m", starts_at: "2030-01-01T00:00:00Z", ends_at: "2030-01-01T01:00:00Z" },
        ],
        ["GET", `/v1/status-pages/${p.id}/subscribers`],
        ["POST", `/v1/status-pages/${p.id}/subscribers`, { url: "https://hooks.example.com/x" }],
      ];
      for (const [method, path, body] of tries) {
        const r = await t.call(method, path, { headers: as, ...(body ? { body } : {}) });
        expect(r.status, `${method} ${path}`).toBe(404);
      }
      const still = await t.call("GET", `/v1/status-pages/${p.id}`, { headers: u.headers });
      expect(still.body.data.title).toBe("Mine");
      expect(
        (await t.call("GET", `/v1/status-pages/${p.id}/incidents`, { headers: u.headers })).body.data.total,
      ).toBe(1);
      // Without credentials: 401; with a read-only key, writes are 403.
      expect((await t.call("GET", "/v1/status-pages")).status).toBe(401);
      const key = await issueKey(t, u.userId, { scopes: ["read"] });
      const ro = await t.call("POST", "/v1/status-pages", {
        headers: keyHeaders(form, key.secret),
        body: { slug: uniqueSlug(), title: "x" },
      });
      expect(ro.status).toBe(403);
    });

    it("keeps an incident's updates and status; maintenance needs its end after its start", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const p = await createPage(t, u, { slug: uniqueSlug(), title: "Mine" });
      const inc = await t.call("POST", `/v1/status-pages/${p.id}/incidents`, {
        headers: u.headers,
        body: { title: "Slow API", impact: "major", message: "We see errors" },
      });
      expect(inc.body.data).toMatchObject({
        status: "investigating",
        impact: "major",
        resolved_at: null,
        monitor_id: null,
      });
      const upd = await t.call("POST", `/v1/status-pages/${p.id}/incidents/${inc.body.data.id}/updates`, {
        headers: u.headers,
        body: { status: "resolved", message: "Fixed" },
      });
      expect(upd.status, upd.text).toBe(201);
      expect(upd.body.data.status).toBe("resolved");
      expect(upd.body.data.resolved_at).not.toBeNull();
      expect(upd.body.data.updates.map((x: { message: string }) => x.message)).toEqual([
        "Fixed",
        "We see errors",
      ]);
      const badStatus = await t.call(
        "POST",
        `/v1/status-pages/${p.id}/incidents/${inc.body.data.id}/updates`,
        {
          headers: u.headers,
          body: { status: "gone", message: "x" },
        },
      );
      expect(badStatus.status).toBe(400);
      const backwards = await t.call("POST", `/v1/status-pages/${p.id}/maintenance`, {
        headers: u.headers,
        body: { title: "m", starts_at: "2030-01-01T02:00:00Z", ends_at: "2030-01-01T01:00:00Z" },
      });
      expect(backwards.status).toBe(400);
      expect(backwards.body.error.details[0].path).toBe("body.ends_at");
      const m = await t.call("POST", `/v1/status-pages/${p.id}/maintenance`, {
        headers: u.headers,
        body: {
          title: "DB upgrade",
          starts_at: "2030-01-01T00:00:00+02:00",
          ends_at: "2030-01-01T01:00:00Z",
        },
      });
      expect(m.status, m.text).toBe(201);
      expect(m.body.data.starts_at).toBe("2029-12-31T22:00:00.000Z");
      const del = await t.call("DELETE", `/v1/status-pages/${p.id}/maintenance/${m.body.data.id}`, {
        headers: u.headers,
      });
      expect(del.status).toBe(200);
      expect(
        (
          await t.call("DELETE", `/v1/status-pages/${p.id}/maintenance/${m.body.data.id}`, {
            headers: u.headers,
          })
        ).status,
      ).toBe(404);
    });
  });
});
