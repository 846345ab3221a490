import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { freshWindow } from "../../testing/fresh-window.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createPage, monitorOf, uniqueSlug } from "./testing/status-api.js";

interface Hit {
  headers: Record<string, string>;
  body: string;
}

/** Mail the outbox holds for `to`, oldest first. */
async function mailTo(t: TestApp, to: string) {
  const rows = await t.db.kysely
    .selectFrom("delivery_outbox")
    .select(["payload"])
    .where("destination", "=", to)
    .orderBy("created_at")
    .execute();
  return rows.map(
    (r) =>
      (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload) as {
        subject: string;
        text: string;
      },
  );
}

/** Subscribers (email with double opt-in, signed webhooks) and incidents opened by monitors going down. */
describe.each(dbKinds)("status page subscribers on %s", (kind) => {
  const db = useTestDb(kind);
  let hook: Server;
  let hookUrl = "";
  const hits: Hit[] = [];
  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        hits.push({ headers: req.headers as Record<string, string>, body });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => hook.close(() => r())));

  describe.each(forms)("form %s", (form) => {
    it("mails a confirmation first, and incident news only once confirmed", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const slug = uniqueSlug();
      const p = await createPage(t, u, { slug, title: "Mailing", auto_incidents: false });
      const email = `${uniqueSlug("reader")}@example.com`;
      const sub = await t.call("POST", `/status/${slug}/subscribe`, { body: { email } });
      expect(sub.status, sub.text).toBe(202);
      const bad = await t.call("POST", `/status/${slug}/subscribe`, { body: { email: "not an address" } });
      expect(bad.status).toBe(400);
      const [confirm] = await mailTo(t, email);
      expect(confirm?.subject).toContain("Confirm");
      const link = /\/status\/[^\s]+\/confirm\?token=[\w-]+/.exec(confirm?.text ?? "")?.[0];
      expect(link).toBeDefined();
      // Pending: an incident mails nothing.
      await t.call("POST", `/v1/status-pages/${p.id}/incidents`, {
        headers: u.headers,
        body: { title: "One", message: "a" },
      });
      expect(await mailTo(t, email)).toHaveLength(1);
      const wrong = await t.call("GET", `/status/${slug}/confirm?token=nope`);
      expect(wrong.text).toContain("Link not valid");
      const ok = await t.call("GET", link as string);
      expect(ok.status).toBe(200);
      expect(ok.text).toContain("Subscribed");
      const list = await t.call("GET", `/v1/status-pages/${p.id}/subscribers`, { headers: u.headers });
      expect(list.body.data.items).toEqual([
        expect.objectContaining({ type: "email", destination: email, confirmed: true }),
      ]);
      await t.call("POST", `/v1/status-pages/${p.id}/incidents`, {
        headers: u.headers,
        body: { title: "Two", message: "b" },
      });
      const mails = await mailTo(t, email);
      expect(mails).toHaveLength(2);
      expect(mails[1]?.subject).toContain("New incident: Two");
      const unsubscribe = /\/status\/[^\s]+\/unsubscribe\?id=\w+/.exec(mails[1]?.text ?? "")?.[0];
      expect((await t.call("GET", unsubscribe as string)).text).toContain("Unsubscribed");
      const after = await t.call("GET", `/v1/status-pages/${p.id}/subscribers`, { headers: u.headers });
      expect(after.body.data.total).toBe(0);
    });

    it("limits confirmation mails per client and per mailbox over every page: 429, nothing mailed", async () => {
      await freshWindow(3_600_000, 30_000);
      const t = db.app(form, { VANTAGE_TRUSTED_PROXIES: "127.0.0.1" });
      const u = await newUser(t, "owner");
      const pages = [uniqueSlug(), uniqueSlug()];
      for (const slug of pages) await createPage(t, u, { slug, title: "Limited", auto_incidents: false });
      const ask = (slug: string, email: string, ip: string) =>
        t.call("POST", `/status/${slug}/subscribe`, { headers: { "x-forwarded-for": ip }, body: { email } });
      // One client (its own address per form: both forms share the database), ten addresses over two pages.
      const client = form === "a" ? "198.51.100.61" : "198.51.100.62";
      const addresses = Array.from({ length: 11 }, () => `${uniqueSlug("many")}@example.com`);
      const statuses: number[] = [];
      for (const [i, email] of addresses.entries())
        statuses.push((await ask(pages[i % 2]!, email, client)).status);
      expect(statuses).toEqual([...Array<number>(10).fill(202), 429]);
      expect(await mailTo(t, addresses[10]!)).toHaveLength(0);
      // One mailbox, three times in an hour from different clients, `+tags` and case folded.
      const box = uniqueSlug("box");
      const one = await ask(pages[0]!, `${box}+a@example.com`, "203.0.113.61");
      const two = await ask(pages[1]!, `${box}+b@example.com`, "203.0.113.62");
      const three = await ask(pages[0]!, `${box.toUpperCase()}@example.com`, "203.0.113.63");
      const four = await ask(pages[1]!, `${box}+d@example.com`, "203.0.113.64");
      expect([one.status, two.status, three.status, four.status]).toEqual([202, 202, 202, 429]);
      expect(four.body.error.code).toBe("rate_limited");
      expect(Number(four.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await mailTo(t, `${box}@example.com`)).toHaveLength(1);
      expect(await mailTo(t, `${box}+d@example.com`)).toHaveLength(0);
    });

    it("signs incident news to webhook subscribers per Standard Webhooks", async () => {
      const t = db.app(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
      const u = await newUser(t, "owner");
      const p = await createPage(t, u, { slug: uniqueSlug(), title: "Hooks", auto_incidents: false });
      const made = await t.call("POST", `/v1/status-pages/${p.id}/subscribers`, {
        headers: u.headers,
        body: { url: hookUrl },
      });
      expect(made.status, made.text).toBe(201);
      expect(made.body.data.secret).toMatch(/^whsec_/);
      const listed = await t.call("GET", `/v1/status-pages/${p.id}/subscribers`, { headers: u.headers });
      expect(JSON.stringify(listed.body)).not.toContain("whsec_");
      const dup = await t.call("POST", `/v1/status-pages/${p.id}/subscribers`, {
        headers: u.headers,
        body: { url: hookUrl },
      });
      expect(dup.status).toBe(409);
      const before = hits.length;
      const inc = await t.call("POST", `/v1/status-pages/${p.id}/incidents`, {
        headers: u.headers,
        body: { title: "Hooked", message: "first" },
      });
      await t.modules.statusPages.runOnce();
      const mine = hits.slice(before);
      expect(mine).toHaveLength(1);
      const hit = mine[0] as Hit;
      const payload = new Webhook(made.body.data.secret).verify(hit.body, hit.headers) as {
        type: string;
        data: { incident: { id: string; title: string } };
      };
      expect(payload.type).toBe("incident.opened");
      expect(payload.data.incident).toMatchObject({ id: inc.body.data.id, title: "Hooked" });
      // Sent once: a second round sends nothing more.
      await t.modules.statusPages.runOnce();
      expect(hits.length - before).toBe(1);
    });

    it("refuses a webhook subscriber written with a private address (422), unless private targets are allowed", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const p = await createPage(t, u, { slug: uniqueSlug(), title: "Inside", auto_incidents: false });
      const refused = await t.call("POST", `/v1/status-pages/${p.id}/subscribers`, {
        headers: u.headers,
        body: { url: "http://127.0.0.1:9/hook" },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: "target_not_allowed",
        message: "body.url: 127.0.0.1 is not a public address",
      });
      const listed = await t.call("GET", `/v1/status-pages/${p.id}/subscribers`, { headers: u.headers });
      expect(listed.body.data.items).toEqual([]);
    });

    it("opens an incident when a component's monitor goes down and resolves it when it is up", async () => {
      const t = db.app(form);
      const u = await newUser(t, "owner");
      const mon = await monitorOf(t, u, "Checkout", "up");
      const slug = uniqueSlug();
      const p = await createPage(t, u, {
        slug,
        title: "Auto",
        components: [{ name: "Checkout", monitor_ids: [mon.id] }],
      });
      const k = t.db.kysely;
      await k.updateTable("monitors").set({ state: "down" }).where("id", "=", mon.id).execute();
      await t.modules.statusPages.runOnce();
      await t.modules.statusPages.runOnce();
      let list = await t.call("GET", `/v1/status-pages/${p.id}/incidents`, { headers: u.headers });
      expect(list.body.data.total).toBe(1);
      expect(list.body.data.items[0]).toMatchObject({
        title: "Checkout is down",
        monitor_id: mon.id,
        status: "investigating",
      });
      const page = await t.call("GET", `/status/${slug}`);
      expect(page.text).toContain("Checkout is down");
      expect(page.text).toContain("Major outage");
      await k.updateTable("monitors").set({ state: "up" }).where("id", "=", mon.id).execute();
      await t.modules.statusPages.runOnce();
      list = await t.call("GET", `/v1/status-pages/${p.id}/incidents`, { headers: u.headers });
      expect(list.body.data.items[0]).toMatchObject({ status: "resolved" });
      expect(list.body.data.items[0].updates[0].message).toBe("Checkout is up again.");
    });
  });
});
