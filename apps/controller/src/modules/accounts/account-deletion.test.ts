import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonb } from "../../db/json.js";
import { issueKey, keyHeaders, newUser, PASSWORD, type TestUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { startSmtp } from "../../testing/smtp-server.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createSenders, startDeliveryWorker } from "../delivery/index.js";

/** The address as the account stores it (the domain lower-cased). */
const stored = (email: string) => email.replace(/@.*$/, "@example.com");

/** Creates a status page through the API; throws on anything but 201. */
async function createPage(t: TestApp, user: TestUser, body: Record<string, unknown>) {
  const r = await t.call("POST", "/v1/status-pages", { headers: user.headers, body });
  if (r.status !== 201) throw new Error(`create page: ${r.status} ${r.text}`);
}

/** What a user owns, made through the API where it can be and written to the tables where it cannot. */
async function belongings(t: TestApp, u: TestUser) {
  const monitorId = `mon_${randomBytes(8).toString("hex")}`;
  const seq = await insertMonitor(t.db.kysely, monitorId, u.userId, { next_run_at: new Date() });
  await t.db.kysely
    .insertInto("monitor_runs")
    .values({ monitor_seq: seq, slot: new Date(), node_id: "node-1", success: true, latency_ms: 12 })
    .execute();
  const slug = `gone-${randomBytes(4).toString("hex")}`;
  await createPage(t, u, { slug, title: "Shop", components: [{ name: "API", monitor_ids: [monitorId] }] });
  const taskId = `task_${randomBytes(8).toString("hex")}`;
  await t.db.kysely
    .insertInto("probe_tasks")
    .values({
      id: taskId,
      type: "ping",
      target: "example.com",
      spec: jsonb({}),
      status: "done",
      node_ids: jsonb(["node-1"]),
      owner_id: u.userId,
    })
    .execute();
  const share = await t.call("POST", `/v1/probe/tasks/${taskId}/share`, { headers: u.headers });
  expect(share.status, share.text).toBeLessThan(300);
  return { monitorId, seq, slug, taskId, shareId: share.body.data.share_id as string };
}

async function countOf(t: TestApp, table: "monitors" | "probe_tasks" | "probe_shares", owner: string) {
  const r = await t.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("owner_id", "=", owner)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

const remove = (t: TestApp, headers: Record<string, string>, body?: unknown) =>
  t.call("DELETE", "/v1/account", { headers, ...(body === undefined ? {} : { body }) });

describe.each(dbKinds)("account deletion on %s", (kind) => {
  const db = useTestDb(kind);
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(() => smtp.stop());

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form, { SMTP_URL: smtp.url });
    });

    it("needs a login session and the right password; a refusal deletes nothing", async () => {
      const u = await newUser(t, "keep");
      const key = await issueKey(t, u.userId);
      const byKey = await remove(t, keyHeaders(form, key.secret), { password: PASSWORD });
      expect(byKey.status).toBe(403);
      expect(byKey.body.error.code).toBe("forbidden");
      expect(byKey.body.error.message).toMatch(/only a login session can delete the account/);
      if (form === "a") {
        const pat = await issueKey(t, u.userId, { kind: "pat" });
        expect((await remove(t, keyHeaders(form, pat.secret), { password: PASSWORD })).status).toBe(403);
      }

      const wrong = await remove(t, u.headers, { password: "not the password" });
      // As a password change answers a wrong current password.
      const change = await t.call("POST", "/v1/account/password", {
        headers: u.headers,
        body: { current_password: "not the password", new_password: "another passphrase" },
      });
      expect(wrong.status).toBe(change.status);
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.code).toBe(change.body.error.code);
      expect(wrong.body.error.details).toEqual([{ path: "body.password", message: expect.any(String) }]);

      const empty = await remove(t, u.headers);
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe("validation_error");
      expect((await remove(t, u.headers, { password: PASSWORD, extra: 1 })).status).toBe(400);
      expect((await remove(t, {}, { password: PASSWORD })).status).toBe(401);

      // Wrong passwords count as failed logins (two above): three more reach the limit, the next is 429.
      for (let i = 0; i < 3; i++) await remove(t, u.headers, { password: `wrong ${i}` });
      const limited = await remove(t, u.headers, { password: PASSWORD });
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).not.toBeNull();

      expect((await t.call("GET", "/v1/account/profile", { headers: u.headers })).status).toBe(200);
      expect(
        (await t.call("GET", "/v1/account/profile", { headers: keyHeaders(form, key.secret) })).status,
      ).toBe(200);
    });

    it("removes the account and all it owns at once; another account is untouched; the address is free again", async () => {
      const u = await newUser(t, "leaver");
      const other = await newUser(t, "stayer");
      const key = await issueKey(t, u.userId);
      const otherKey = await issueKey(t, other.userId);
      const mine = await belongings(t, u);
      const theirs = await belongings(t, other);
      // Both credentials are cached now: the deletion must evict them, not wait for the cache's 10 s.
      expect(
        (await t.call("GET", "/v1/account/profile", { headers: keyHeaders(form, key.secret) })).status,
      ).toBe(200);
      expect((await t.call("GET", `/status/${mine.slug}`)).status).toBe(200);
      expect((await t.call("GET", `/v1/shares/${mine.shareId}`)).status).toBe(200);

      const res = await remove(t, u.headers, { password: PASSWORD });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toBeNull();

      for (const headers of [u.headers, keyHeaders(form, key.secret)]) {
        const r = await t.call("GET", "/v1/account/profile", { headers });
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe("unauthorized");
      }
      const login = await t.call("POST", "/v1/auth/login", { body: { email: u.email, password: PASSWORD } });
      expect(login.status).toBe(401);
      // The page is gone at once, its cached rendering too.
      for (const path of [`/status/${mine.slug}`, `/status/${mine.slug}/status.json`]) {
        expect((await t.call("GET", path)).status, path).toBe(404);
      }
      expect((await t.call("GET", `/v1/shares/${mine.shareId}`)).status).toBe(404);
      expect(await countOf(t, "monitors", u.userId)).toBe(0);
      expect(await countOf(t, "probe_tasks", u.userId)).toBe(0);
      expect(await countOf(t, "probe_shares", u.userId)).toBe(0);
      const runs = await t.db.kysely
        .selectFrom("monitor_runs")
        .select("monitor_seq")
        .where("monitor_seq", "in", [mine.seq, theirs.seq])
        .execute();
      expect(runs.map((r) => String(r.monitor_seq))).toEqual([theirs.seq]);
      // Nothing of the account is left for the scheduler: no monitor of it is due any more.
      const due = await t.db.kysely
        .selectFrom("monitors")
        .select("id")
        .where("next_run_at", "<=", new Date())
        .where("id", "=", mine.monitorId)
        .execute();
      expect(due).toEqual([]);
      // The confirmation goes through the outbox to the address the account had.
      const log = pino({ level: "silent" });
      const senders = createSenders({ smtpUrl: t.config.SMTP_URL, smtpFrom: t.config.SMTP_FROM, log });
      const worker = startDeliveryWorker({ db: t.db.kysely, senders, log, poll: false });
      await worker.runOnce();
      await worker.stop();
      const mail = smtp.inbox.filter((m) => m.to.includes(stored(u.email)));
      expect(mail.map((m) => /Subject: (.*)/.exec(m.raw)?.[1])).toContain("Your Vantage account was deleted");

      // The other account: its key, page, monitor, task and share all still there.
      expect(
        (await t.call("GET", "/v1/account/profile", { headers: keyHeaders(form, otherKey.secret) })).status,
      ).toBe(200);
      expect((await t.call("GET", `/status/${theirs.slug}`)).status).toBe(200);
      expect((await t.call("GET", `/v1/shares/${theirs.shareId}`)).status).toBe(200);
      expect(await countOf(t, "monitors", other.userId)).toBe(1);
      expect(await countOf(t, "probe_tasks", other.userId)).toBe(1);

      const again = await t.call("POST", "/v1/auth/register", {
        body: { email: u.email, password: PASSWORD },
      });
      expect(again.status, again.text).toBe(201);
      // A second delete with the old session: it is no longer a credential.
      expect((await remove(t, u.headers, { password: PASSWORD })).status).toBe(401);
    });
  });
});
