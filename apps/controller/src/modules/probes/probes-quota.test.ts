import { beforeEach, describe, expect, it } from "vitest";
import { quotaWindows, syncedRateLimitStore } from "../../http/rate-limit/index.js";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { serveNode, settle } from "../../testing/agents.js";
import { freshWindow } from "../../testing/fresh-window.js";
import { tcpBody } from "../../testing/probe-requests.js";
import { dbKinds, forms, openTestDb, planLimitsEnv } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { findTask } from "./repo.js";

/** Hourly probe quotas in node-probes: per client IP, per account, shared by controllers on one database. */
describe.each(dbKinds)("probe quotas on %s", (kind) => {
  const db = useTestDb(kind);
  const limits = (anon: number, auth = 0) => ({
    VANTAGE_PLAN_LIMITS: planLimitsEnv({
      anonymous: { node_probes_per_hour: anon },
      free: { node_probes_per_hour: auth },
    }),
    // app.request has no socket: the peer is taken as 127.0.0.1, trusted here so X-Forwarded-For names the client.
    VANTAGE_TRUSTED_PROXIES: "127.0.0.1",
  });
  const from = (ip: string) => ({ "x-forwarded-for": ip });
  const taskCount = async () =>
    Number(
      (
        await db.testDb.db.kysely
          .selectFrom("probe_tasks")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe.each(forms)("form %s", (form) => {
    const created = form === "a" ? 202 : 200;
    // Both forms' apps share the database (and so the counters): each form uses its own addresses.
    const n = form === "a" ? 1 : 2;
    // node_probes_per_hour counts in whole hours: each test's probes must land in one.
    beforeEach(() => freshWindow(quotaWindows.hour, 30_000));

    it("counts node-probes per client IP; a request that does not fit is refused whole and costs nothing", async () => {
      const t = await db.freshApp(form, limits(7));
      const nodes = [
        ["q1", "DE"],
        ["q2", "US"],
        ["q3", "SG"],
      ].map(([id, country]) => serveNode(t.bus, { id: id!, country: country! }));
      await settle();
      const body = tcpBody(form, "example.com", 443);
      const ip = `198.51.100.${n}7`;
      const first = await t.call("POST", "/v1/probe/tcp", { body, headers: from(ip) });
      expect(first.status).toBe(created);
      expect(first.headers.get("ratelimit-limit")).toBe("7");
      expect(first.headers.get("ratelimit-remaining")).toBe("4");
      expect(Number(first.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
      expect(Number(first.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(3600);
      const second = await t.call("POST", "/v1/probe/tcp", { body, headers: from(ip) });
      expect(second.headers.get("ratelimit-remaining")).toBe("1");
      await t.drain();

      const jobsBefore = nodes.reduce((n, s) => n + s.jobs.length, 0);
      const tasksBefore = await taskCount();
      const refused = await t.call("POST", "/v1/probe/tcp", { body, headers: from(ip) });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("rate_limited");
      expect(refused.body.error.message).toContain("7 node-probes per hour for this address");
      expect(refused.body.error.message).toContain("needs 3, 1 left");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("ratelimit-remaining")).toBe("1");
      await t.drain();
      expect(nodes.reduce((n, s) => n + s.jobs.length, 0)).toBe(jobsBefore);
      expect(await taskCount()).toBe(tasksBefore);

      // One named node still fits; another address has its own quota.
      const one = tcpBody(form, "example.com", 443, ["q1"]);
      const last = await t.call("POST", "/v1/probe/tcp", { body: one, headers: from(ip) });
      expect(last.status).toBe(created);
      expect(last.headers.get("ratelimit-remaining")).toBe("0");
      const other = await t.call("POST", "/v1/probe/tcp", { body, headers: from(`198.51.100.${n}8`) });
      expect(other.status).toBe(created);
      expect(other.headers.get("ratelimit-remaining")).toBe("4");
    });

    it("an IPv6 client is counted per /64", async () => {
      const t = await db.freshApp(form, limits(3));
      serveNode(t.bus, { id: "v6" });
      await settle();
      const body = tcpBody(form, "example.com", 443);
      const a = await t.call("POST", "/v1/probe/tcp", { body, headers: from(`2001:db8:${n}:2::10`) });
      expect(a.headers.get("ratelimit-remaining")).toBe("2");
      const b = await t.call("POST", "/v1/probe/tcp", { body, headers: from(`2001:db8:${n}:2:ffff::1`) });
      expect(b.headers.get("ratelimit-remaining")).toBe("1");
      const c = await t.call("POST", "/v1/probe/tcp", { body, headers: from(`2001:db8:${n}:3::10`) });
      expect(c.headers.get("ratelimit-remaining")).toBe("2");
    });

    it("with credentials the account's quota applies and the account owns the task; bad credentials are a 401", async () => {
      const t = await db.freshApp(form, limits(1, 4));
      const node = serveNode(t.bus, { id: "acct" });
      await settle();
      const user = await newUser(t, "quota");
      const key = await issueKey(t, user.userId, { scopes: ["read"] });
      const body = tcpBody(form, "example.com", 443);
      const ip = from(`203.0.113.${n}9`);
      const withKey = await t.call("POST", "/v1/probe/tcp", {
        body,
        headers: { ...ip, ...keyHeaders(form, key.secret) },
      });
      expect(withKey.status).toBe(created);
      expect(withKey.headers.get("ratelimit-limit")).toBe("4");
      expect(withKey.headers.get("ratelimit-remaining")).toBe("3");
      await t.drain();
      const stored = await db.testDb.db.kysely
        .selectFrom("probe_tasks")
        .select("owner_id")
        .where("id", "=", withKey.body.data.task_id)
        .executeTakeFirstOrThrow();
      expect(stored.owner_id).toBe(user.userId);
      // The login JWT names the same account: same bucket.
      const withJwt = await t.call("POST", "/v1/probe/tcp", { body, headers: { ...ip, ...user.headers } });
      expect(withJwt.headers.get("ratelimit-remaining")).toBe("2");
      // Anonymous from the same address: the address's own quota.
      const anon = await t.call("POST", "/v1/probe/tcp", { body, headers: ip });
      expect(anon.headers.get("ratelimit-limit")).toBe("1");
      expect(
        (await findTask(db.testDb.db.kysely, anon.body.data.task_id))?.id ?? "written later",
      ).toBeTruthy();

      const jobs = node.jobs.length;
      const bad = await t.call("POST", "/v1/probe/tcp", {
        body,
        headers: { ...ip, authorization: "Bearer not-a-real-token" },
      });
      expect(bad.status).toBe(401);
      expect(bad.body.error.code).toBe("unauthorized");
      expect(node.jobs.length).toBe(jobs);
    });

    it("a task created with credentials is read only by its account; an anonymous one by its id alone", async () => {
      const t = await db.freshApp(form, limits(0));
      serveNode(t.bus, { id: "own" });
      await settle();
      const owner = await newUser(t, "task-owner");
      const stranger = await newUser(t, "task-stranger");
      const key = await issueKey(t, owner.userId, { scopes: ["read"] });
      const body = tcpBody(form, "example.com", 443);
      const mine = await t.call("POST", "/v1/probe/tcp", { body, headers: keyHeaders(form, key.secret) });
      const anon = await t.call("POST", "/v1/probe/tcp", { body });
      await t.drain();
      const read = (id: string, headers: Record<string, string> = {}) =>
        t.call("GET", `/v1/probe/tasks/${id}`, { headers });
      const ownId = mine.body.data.task_id as string;

      for (const res of [await read(ownId, owner.headers), await read(ownId, keyHeaders(form, key.secret))]) {
        expect(res.status).toBe(200);
        expect(res.body.data.task_id).toBe(ownId);
      }
      for (const res of [await read(ownId), await read(ownId, stranger.headers)]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("not_found");
      }
      const bad = await read(ownId, { authorization: "Bearer not-a-real-token" });
      expect(bad.status).toBe(401);
      for (const headers of [{}, stranger.headers]) {
        const res = await read(anon.body.data.task_id, headers);
        expect(res.status).toBe(200);
        expect(res.body.data.task_id).toBe(anon.body.data.task_id);
      }
    });

    it("GET /v1/probe/quota tells the caller's quota without spending any", async () => {
      const t = await db.freshApp(form, limits(7, 50));
      serveNode(t.bus, { id: "qq" });
      await settle();
      const ip = from(`198.51.100.${n}5`);
      await t.call("POST", "/v1/probe/tcp", { body: tcpBody(form, "example.com", 443), headers: ip });
      for (let i = 0; i < 2; i++) {
        const q = await t.call("GET", "/v1/probe/quota", { headers: ip });
        expect(q.status).toBe(200);
        expect(q.body.data).toMatchObject({ caller: "ip", limit: 7, used: 1, remaining: 6 });
        expect(q.body.data.reset_s).toBeGreaterThan(0);
        expect(q.body.data.reset_s).toBeLessThanOrEqual(3600);
      }
      const user = await newUser(t, "quota-view");
      const mine = await t.call("GET", "/v1/probe/quota", { headers: { ...ip, ...user.headers } });
      expect(mine.body.data).toMatchObject({ caller: "account", limit: 50, used: 0, remaining: 50 });
      const bad = await t.call("GET", "/v1/probe/quota", { headers: { authorization: "Bearer nope" } });
      expect(bad.status).toBe(401);
      const free = await db.freshApp(form, limits(0));
      const unlimited = await free.call("GET", "/v1/probe/quota");
      expect(unlimited.body.data).toMatchObject({ caller: "ip", limit: null, used: 0, remaining: null });
    });

    it("limit 0 means unlimited: no quota headers", async () => {
      const t = await db.freshApp(form, limits(0));
      serveNode(t.bus, { id: "free" });
      await settle();
      const res = await t.call("POST", "/v1/probe/tcp", { body: tcpBody(form, "example.com", 443) });
      expect(res.status).toBe(created);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    });
  });

  it("controllers on one database share counts: a second one learns the first's at its next sync", async () => {
    const a = syncedRateLimitStore(db.testDb.db.kysely, { syncMs: 60_000 });
    const b = syncedRateLimitStore(db.testDb.db.kysely, { syncMs: 60_000 });
    const hour = 3_600_000;
    const start = Math.floor(Date.now() / hour) * hour;
    expect(await a.add("t:shared", start, hour, 5)).toBe(5);
    await a.sync();
    // b has not heard of it yet: between syncs each controller counts its own hits.
    expect(await b.add("t:shared", start, hour, 2)).toBe(2);
    await b.sync();
    expect(await b.get("t:shared", start)).toBe(7);
    expect(await a.add("t:shared", start, hour, 1)).toBe(6);
    await a.sync();
    expect(await a.get("t:shared", start)).toBe(8);
    // A late count for a window another controller has already left does not drag the row back.
    const c = syncedRateLimitStore(db.testDb.db.kysely, { syncMs: 60_000 });
    await c.add("t:shared", start + hour, hour, 1);
    await c.sync();
    await a.add("t:shared", start, hour, 4);
    await a.sync();
    const row = await db.testDb.db.kysely
      .selectFrom("rate_limits")
      .selectAll()
      .where("bucket", "=", "t:shared")
      .executeTakeFirstOrThrow();
    expect(new Date(row.window_start).getTime()).toBe(start + hour);
    expect(Number(row.hits)).toBe(1);
    await Promise.all([a.stop(), b.stop(), c.stop()]);
  });

  it("a bucket first used in a window is read from the table; buckets used without news are refreshed", async () => {
    const a = syncedRateLimitStore(db.testDb.db.kysely, { syncMs: 60_000 });
    const b = syncedRateLimitStore(db.testDb.db.kysely, { syncMs: 60_000 });
    const minute = 60_000;
    const start = Math.floor(Date.now() / minute) * minute;
    a.addNow("t:prime", start, minute, 4);
    await a.sync();
    // b has never counted the bucket: ensure reads the shared count once, then counting is local.
    const first = b.ensure("t:prime", start, minute);
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(b.ensure("t:prime", start, minute)).toBeUndefined();
    expect(b.getNow("t:prime", start)).toBe(4);
    // a counts more; b only reads the bucket, yet learns a's count at its own next sync.
    a.addNow("t:prime", start, minute, 3);
    await a.sync();
    expect(b.getNow("t:prime", start)).toBe(4);
    await b.sync();
    expect(b.getNow("t:prime", start)).toBe(7);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("hits on their way to the table still count while the sync's statement is out", async () => {
    const a = syncedRateLimitStore(db.testDb.db.kysely, { syncMs: 60_000 });
    const minute = 60_000;
    const start = Math.floor(Date.now() / minute) * minute;
    a.addNow("t:flight", start, minute, 5);
    // Sampled until the sync ends: a controller counted 0 while its
    // statement was out (the hits neither pending nor in the table yet) and admitted calls over the limit.
    let done = false;
    const synced = a.sync().then(() => {
      done = true;
    });
    const seen: number[] = [];
    // At every microtask first (PGlite answers within a few), then at every turn (PostgreSQL's socket).
    for (let i = 0; !done; i++) {
      seen.push(a.getNow("t:flight", start));
      await (i < 200 ? Promise.resolve() : new Promise((r) => setImmediate(r)));
    }
    await synced;
    expect(seen.length).toBeGreaterThan(3);
    expect(Math.min(...seen)).toBe(5);
    expect(a.getNow("t:flight", start)).toBe(5);
    a.addNow("t:flight", start, minute, 2);
    await a.sync();
    expect(a.getNow("t:flight", start)).toBe(7);
    await a.stop();
  });

  it("counts survive a database that is away: kept locally and reported", async () => {
    const gone = await openTestDb(kind);
    await gone.close();
    const errors: unknown[] = [];
    const s = syncedRateLimitStore(gone.db.kysely, { syncMs: 60_000, onError: (e) => errors.push(e) });
    const start = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await s.add("t:away", start, 3_600_000, 3);
    await s.sync();
    expect(errors).toHaveLength(1);
    expect(await s.get("t:away", start)).toBe(3);
    expect(await s.add("t:away", start, 3_600_000, 1)).toBe(4);
  });
});
