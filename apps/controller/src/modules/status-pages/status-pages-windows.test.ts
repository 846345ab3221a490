import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { dbKinds, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createPage, monitorOf, uniqueSlug } from "./testing/status-api.js";

/** The monitors' maintenance windows (issue #29 item 4) on the status pages whose components they cover. */
describe.each(dbKinds)("maintenance windows on status pages on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    it("shows an open window over a component's monitor: that component is under maintenance", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const down = await monitorOf(t, u, "Search", "down");
      const up = await monitorOf(t, u, "Login", "up");
      const other = await monitorOf(t, u, "Elsewhere", "up");
      const slug = uniqueSlug();
      await createPage(t, u, {
        slug,
        title: "Windows",
        auto_incidents: false,
        components: [
          { name: "Search", monitor_ids: [down.id] },
          { name: "Login", monitor_ids: [up.id] },
        ],
      });
      const now = Date.now();
      const made = await t.call("POST", "/v1/maintenance-windows", {
        headers: u.headers,
        body: {
          title: "Index rebuild",
          monitor_ids: [down.id],
          starts_at: new Date(now - 60_000).toISOString(),
          ends_at: new Date(now + 3_600_000).toISOString(),
        },
      });
      expect(made.status, made.text).toBe(201);
      // A window over a monitor of no component is not shown.
      await t.call("POST", "/v1/maintenance-windows", {
        headers: u.headers,
        body: {
          title: "Unrelated work",
          monitor_ids: [other.id],
          starts_at: new Date(now - 60_000).toISOString(),
          ends_at: new Date(now + 3_600_000).toISOString(),
        },
      });
      const json = await t.call("GET", `/status/${slug}/status.json`);
      expect(json.body.data.components.map((c: { status: string }) => c.status)).toEqual([
        "maintenance",
        "operational",
      ]);
      expect(json.body.data.maintenance.map((m: { title: string }) => m.title)).toEqual(["Index rebuild"]);
      const html = await t.call("GET", `/status/${slug}`);
      expect(html.text).toContain("Index rebuild");
      expect(html.text).toContain("Under maintenance");
      expect(html.text).not.toContain("Unrelated work");
    });

    it("opens no automatic incident for a monitor down inside maintenance, and one once it outlasts it", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const search = await monitorOf(t, u, "Search", "down");
      const login = await monitorOf(t, u, "Login", "down");
      const p = await createPage(t, u, {
        slug: uniqueSlug(),
        title: "Quiet work",
        components: [
          { name: "Search", monitor_ids: [search.id] },
          { name: "Login", monitor_ids: [login.id] },
        ],
      });
      const now = Date.now();
      const window = await t.call("POST", "/v1/maintenance-windows", {
        headers: u.headers,
        body: {
          title: "Index rebuild",
          monitor_ids: [search.id],
          starts_at: new Date(now - 60_000).toISOString(),
          ends_at: new Date(now + 3_600_000).toISOString(),
        },
      });
      expect(window.status, window.text).toBe(201);
      const incidents = async () =>
        (
          await t.call("GET", `/v1/status-pages/${p.id}/incidents`, { headers: u.headers })
        ).body.data.items.map((i: { title: string }) => i.title);
      await t.modules.statusPages.runOnce();
      expect(await incidents()).toEqual(["Login is down"]);
      // The window ends with Search still down: now it is an incident.
      const ended = await t.call("PATCH", `/v1/maintenance-windows/${window.body.data.id}`, {
        headers: u.headers,
        body: { ends_at: new Date(Date.now() - 1000).toISOString() },
      });
      expect(ended.status, ended.text).toBe(200);
      await t.modules.statusPages.runOnce();
      expect((await incidents()).sort()).toEqual(["Login is down", "Search is down"]);
    });

    it("a page's own maintenance entry holds back automatic incidents for all its components", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const mon = await monitorOf(t, u, "Checkout", "down");
      const p = await createPage(t, u, {
        slug: uniqueSlug(),
        title: "Planned",
        components: [{ name: "Checkout", monitor_ids: [mon.id] }],
      });
      const entry = await t.call("POST", `/v1/status-pages/${p.id}/maintenance`, {
        headers: u.headers,
        body: {
          title: "Database upgrade",
          starts_at: new Date(Date.now() - 60_000).toISOString(),
          ends_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      });
      expect(entry.status, entry.text).toBe(201);
      await t.modules.statusPages.runOnce();
      const list = await t.call("GET", `/v1/status-pages/${p.id}/incidents`, { headers: u.headers });
      expect(list.body.data.total).toBe(0);
    });
  });
});
