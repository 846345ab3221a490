import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { dbKinds, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createPage, monitorOf, uniqueSlug, xmlProblem } from "./testing/status-api.js";

const DAY_MS = 86_400_000;
const XSS = `<script>alert("x")</script>&<img src=x onerror=alert(1)>`;

/** The public face of status pages: HTML without JavaScript, JSON, Atom, badges, custom domains, the cache. */
describe.each(dbKinds)("public status pages on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    it("shows an incident and maintenance in HTML without scripts, JSON, the feed and badges; escapes input", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const api = await monitorOf(t, u, `API ${XSS}`, "up");
      const db2 = await monitorOf(t, u, "Database", "down");
      const slug = uniqueSlug("shop");
      const p = await createPage(t, u, {
        slug,
        title: `Shop ${XSS}`,
        components: [
          { name: `Checkout ${XSS}`, monitor_ids: [api.id] },
          { name: "Storage", monitor_ids: [api.id, db2.id] },
        ],
        auto_incidents: false,
      });
      const inc = await t.call("POST", `/v1/status-pages/${p.id}/incidents`, {
        headers: u.headers,
        body: { title: `Payments failing ${XSS}`, impact: "major", message: `Card errors ${XSS}` },
      });
      expect(inc.status, inc.text).toBe(201);
      const now = Date.now();
      const m = await t.call("POST", `/v1/status-pages/${p.id}/maintenance`, {
        headers: u.headers,
        body: {
          title: `DB upgrade ${XSS}`,
          description: "Read-only for an hour",
          starts_at: new Date(now + DAY_MS).toISOString(),
          ends_at: new Date(now + DAY_MS + 3_600_000).toISOString(),
        },
      });
      expect(m.status, m.text).toBe(201);

      const html = await t.call("GET", `/status/${slug}`);
      expect(html.status).toBe(200);
      expect(html.headers.get("content-type")).toMatch(/^text\/html/);
      expect(html.text).not.toMatch(/<script/i);
      expect(html.headers.get("content-security-policy")).toContain("script-src 'none'");
      expect(html.headers.get("x-frame-options")).toBe("DENY");
      expect(html.text).not.toContain("<img src=x");
      expect(html.text).toContain("Payments failing &#60;script&#62;");
      expect(html.text).toContain("Card errors");
      expect(html.text).toContain("DB upgrade");
      expect(html.text).toContain("Scheduled maintenance");
      expect(html.text).toContain("Degraded performance");
      // 90 bars per component.
      expect(html.text.match(/M\d+ 0v28/g)?.length).toBe(180);

      const json = await t.call("GET", `/status/${slug}/status.json`);
      expect(json.status).toBe(200);
      const data = json.body.data;
      expect(data.status).toBe("degraded");
      expect(data.components.map((c: { status: string }) => c.status)).toEqual(["operational", "degraded"]);
      expect(data.components[0].daily_uptime_percent).toHaveLength(90);
      expect(data.incidents[0]).toMatchObject({ title: `Payments failing ${XSS}`, status: "investigating" });
      expect(data.maintenance[0].title).toBe(`DB upgrade ${XSS}`);
      expect(JSON.stringify(data)).not.toContain(api.id);

      const feed = await t.call("GET", `/status/${slug}/feed.atom`);
      expect(feed.headers.get("content-type")).toMatch(/^application\/atom\+xml/);
      expect(xmlProblem(feed.text)).toBeUndefined();
      expect(feed.text).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
      expect(feed.text).toContain(`<id>urn:vantage:incident:${inc.body.data.id}</id>`);
      expect(feed.text).not.toContain("<script");

      for (const badge of ["status", "uptime"]) {
        const svg = await t.call("GET", `/status/${slug}/badge/${badge}.svg`);
        expect(svg.headers.get("content-type")).toBe("image/svg+xml");
        expect(xmlProblem(svg.text)).toBeUndefined();
        expect(svg.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      }
      expect((await t.call("GET", `/status/${slug}/badge/status.svg`)).text).toContain(
        "degraded performance",
      );
    });

    it("answers 404 for an unknown slug on every public path", async () => {
      const t = db.app(form);
      for (const suffix of ["", "/status.json", "/feed.atom", "/badge/status.svg", "/badge/uptime.svg"]) {
        const r = await t.call("GET", `/status/no-such-page-${suffix.length}${suffix}`);
        expect(r.status, suffix).toBe(404);
        expect(r.body.error.code).toBe("not_found");
      }
      const sub = await t.call("POST", "/status/no-such-page/subscribe", {
        body: { email: "a@example.com" },
      });
      expect(sub.status).toBe(404);
    });

    it("serves a custom domain by Host header, and a change shows at once (the cache is dropped)", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const domain = `${uniqueSlug("status")}.example.com`;
      const p = await createPage(t, u, { slug: uniqueSlug(), title: "Before", custom_domain: domain });
      const first = await t.call("GET", "/", { headers: { host: `${domain}:8080` } });
      expect(first.status).toBe(200);
      expect(first.text).toContain("<h1>Before</h1>");
      const etag = first.headers.get("etag") ?? "";
      const again = await t.call("GET", "/", { headers: { host: domain, "if-none-match": etag } });
      expect(again.status).toBe(304);
      await t.call("PATCH", `/v1/status-pages/${p.id}`, { headers: u.headers, body: { title: "After" } });
      const after = await t.call("GET", "/", { headers: { host: domain } });
      expect(after.text).toContain("<h1>After</h1>");
      const json = await t.call("GET", "/status.json", { headers: { host: domain } });
      expect(json.body.data.page.title).toBe("After");
      // Another host still gets the service's own root.
      const root = await t.call("GET", "/", { headers: { host: "other.example.org" } });
      expect(root.text).not.toContain("<h1>After</h1>");
    });

    it("draws the 90-day bars from day roll-ups, hour roll-ups and raw runs", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const mon = await monitorOf(t, u, "Site");
      const slug = uniqueSlug();
      await createPage(t, u, { slug, title: "Bars", components: [{ name: "Site", monitor_ids: [mon.id] }] });
      const k = t.db.kysely;
      const now = Date.now();
      const today = Math.floor(now / DAY_MS) * DAY_MS;
      const hour = Math.floor(now / 3_600_000) * 3_600_000;
      // The roll-up job's progress rows (monitor_seq 0) say where each period's roll-ups end; this test's
      // run in the other form left them at its own hour: replace them, not add to them (no job runs here).
      await k.deleteFrom("monitor_rollups").where("monitor_seq", "=", 0).execute();
      await k
        .insertInto("monitor_rollups")
        .values(
          [
            {
              monitor_seq: mon.seq,
              period: "day" as const,
              bucket: new Date(today - 10 * DAY_MS),
              runs: 100,
              failures: 50,
            },
            // Yesterday is not rolled into a day yet: its hours count.
            {
              monitor_seq: mon.seq,
              period: "hour" as const,
              bucket: new Date(today - DAY_MS + 3_600_000),
              runs: 10,
              failures: 0,
            },
            { monitor_seq: 0, period: "day" as const, bucket: new Date(today - DAY_MS) },
            { monitor_seq: 0, period: "hour" as const, bucket: new Date(hour) },
          ].map((r) => ({ runs: 0, failures: 0, ...r })),
        )
        .execute();
      await k
        .insertInto("monitor_runs")
        .values([
          {
            monitor_seq: mon.seq,
            slot: new Date(hour),
            node_id: "n1",
            success: true,
            latency_ms: 5,
            error_code: null,
          },
          {
            monitor_seq: mon.seq,
            slot: new Date(hour + 1),
            node_id: "n1",
            success: false,
            latency_ms: null,
            error_code: "timeout",
          },
        ])
        .execute();
      const json = await t.call("GET", `/status/${slug}/status.json`);
      const daily = json.body.data.components[0].daily_uptime_percent as (number | null)[];
      expect(json.body.data.days).toEqual({
        from: new Date(today - 89 * DAY_MS).toISOString().slice(0, 10),
        to: new Date(today).toISOString().slice(0, 10),
      });
      expect(daily).toHaveLength(90);
      // Ten days ago from its day roll-up, yesterday from its hours, today from the raw runs.
      expect(daily[79]).toBe(50);
      expect(daily[88]).toBe(100);
      expect(daily[89]).toBe(50);
      expect(daily.filter((d) => d !== null)).toHaveLength(3);
      // (50 + 10 + 1 passed) of (100 + 10 + 2) runs.
      expect(json.body.data.components[0].uptime_90d_percent).toBe(54.464);
    });
  });
});
