import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { dbKinds, forms, planLimitsEnv } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { phaseMs } from "./slots.js";
import { createBody, formFields, useMonitorsApi } from "./testing/monitors-api.js";

/** Monitors through the API: create, read, list, change, delete, pause and resume; ownership, scopes and the plan's count. */
describe.each(dbKinds)("monitor CRUD on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const { intervalKey, sizeKey } = formFields(form);
    const api = useMonitorsApi(db, form);
    const { create } = api;

    it("creates, reads, lists, changes and deletes a monitor", async () => {
      const u = await newUser(api.t);
      const before = Date.now();
      const created = await create(u, createBody(form, "http", "https://example.com/health"));
      expect(created.status, created.text).toBe(201);
      const m = created.body.data;
      expect(m.id).toMatch(/^mon_[a-z0-9]+$/);
      expect(m).toMatchObject({
        name: "http monitor",
        type: "http",
        status: "active",
        [intervalKey]: 60,
        state: "unknown",
        state_changed_at: null,
        last_run_at: null,
        config: {
          method: "GET",
          expected_status: ["2xx", "3xx"],
          keyword_absent: false,
          follow_redirects: false,
          timeout_ms: 10_000,
          node_count: 1,
          failure_threshold: 2,
          recovery_threshold: 1,
        },
      });
      expect(m[form === "a" ? "target" : "url"]).toBe("https://example.com/health");
      const next = Date.parse(m.next_run_at);
      expect(next).toBeGreaterThanOrEqual(before);
      expect(next).toBeLessThanOrEqual(Date.now() + 60_000);
      expect((next - phaseMs(m.id, 60)) % 60_000).toBe(0);

      const got = await api.t.call("GET", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(m);

      const list = await api.t.call("GET", "/v1/monitors", { headers: u.headers });
      expect(list.body.data).toEqual({ items: [m], total: 1, page: 1, [sizeKey]: 20 });

      const patched = await api.t.call("PATCH", `/v1/monitors/${m.id}`, {
        headers: u.headers,
        // One status code is taken as the list of it, and answered as the list.
        body: { name: "renamed", [intervalKey]: 120, config: { timeout_ms: 5000, expected_status: 200 } },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.data).toMatchObject({
        id: m.id,
        name: "renamed",
        [intervalKey]: 120,
        config: { timeout_ms: 5000, expected_status: [200], method: "GET" },
      });
      // A new interval re-plans the next run on the new interval's slots.
      const replanned = Date.parse(patched.body.data.next_run_at);
      expect((replanned - phaseMs(m.id, 120)) % 120_000).toBe(0);
      expect(replanned).toBeLessThanOrEqual(Date.now() + 120_000);

      // Config patches merge; null returns a key to its default.
      const reset = await api.t.call("PATCH", `/v1/monitors/${m.id}`, {
        headers: u.headers,
        body: { config: { timeout_ms: null, nodes: ["fra1", "sgp1"] } },
      });
      expect(reset.status, reset.text).toBe(200);
      expect(reset.body.data.config).toMatchObject({
        timeout_ms: 10_000,
        expected_status: [200],
        nodes: ["fra1", "sgp1"],
      });
      expect(reset.body.data.config).not.toHaveProperty("node_count");
      const counted = await api.t.call("PATCH", `/v1/monitors/${m.id}`, {
        headers: u.headers,
        body: { config: { node_count: 3 } },
      });
      expect(counted.body.data.config).toMatchObject({ node_count: 3 });
      expect(counted.body.data.config).not.toHaveProperty("nodes");

      const del = await api.t.call("DELETE", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(del.status).toBe(200);
      expect(del.body.data).toBeNull();
      const gone = await api.t.call("GET", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe("not_found");
      const again = await api.t.call("DELETE", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(again.status).toBe(404);
      const empty = await api.t.call("GET", "/v1/monitors", { headers: u.headers });
      expect(empty.body.data).toMatchObject({ items: [], total: 0 });
    });

    it("names each type's target as the form does", async () => {
      const u = await newUser(api.t);
      const ping = (await create(u, createBody(form, "ping", "example.net"))).body.data;
      const trace = (await create(u, createBody(form, "traceroute", "example.org"))).body.data;
      const tcp = (await create(u, createBody(form, "tcp", "example.com:443"))).body.data;
      const dnsBody =
        form === "a"
          ? createBody(form, "dns", "example.com", { config: { record_type: "MX", server: "1.1.1.1" } })
          : { ...createBody(form, "dns", "example.com"), record_type: "MX", server: "1.1.1.1" };
      const dns = (await create(u, dnsBody)).body.data;
      expect(ping.config).toMatchObject({ count: 3, max_loss_percent: 0, timeout_ms: 5000 });
      expect(trace.config).toMatchObject({ max_hops: 30 });
      expect(dns.config).toMatchObject({ timeout_ms: 5000 });
      if (form === "a") {
        expect([ping.target, trace.target, tcp.target, dns.target]).toEqual([
          "example.net",
          "example.org",
          "example.com:443",
          "example.com",
        ]);
        expect(dns.config).toMatchObject({ record_type: "MX", server: "1.1.1.1" });
        // A host with config.port: the target carries the port, the config no longer does.
        const split = await create(u, createBody(form, "tcp", "example.com", { config: { port: 8443 } }));
        expect(split.status, split.text).toBe(201);
        expect(split.body.data.target).toBe("example.com:8443");
        expect(split.body.data.config).not.toHaveProperty("port");
      } else {
        expect(ping).toMatchObject({ url: "example.net", host: "example.net" });
        expect(trace).toMatchObject({ url: "example.org", host: "example.org" });
        expect(tcp).toMatchObject({ url: "example.com:443", host: "example.com", port: 443 });
        expect(dns).toMatchObject({
          url: "example.com",
          domain: "example.com",
          record_type: "MX",
          server: "1.1.1.1",
        });
        expect(dns.config).not.toHaveProperty("record_type");
        expect(ping).not.toHaveProperty("domain");
        // `url` may carry Form A's target text for other types.
        const viaUrl = await create(u, { name: "via url", type: "tcp", url: "example.com:25" });
        expect(viaUrl.status, viaUrl.text).toBe(201);
        expect(viaUrl.body.data).toMatchObject({ host: "example.com", port: 25 });
        // The DNS fields change at the top level; null returns them to their defaults.
        const patched = await api.t.call("PATCH", `/v1/monitors/${dns.id}`, {
          headers: u.headers,
          body: { record_type: "TXT", server: null },
        });
        expect(patched.status, patched.text).toBe(200);
        expect(patched.body.data).toMatchObject({ record_type: "TXT", server: null });
        const wrongType = await api.t.call("PATCH", `/v1/monitors/${ping.id}`, {
          headers: u.headers,
          body: { record_type: "TXT" },
        });
        expect(wrongType.status).toBe(400);
        expect(wrongType.body.error.details[0].path).toBe("body.record_type");
      }
    });

    it("pages newest first: defaults, a page past the end, and page sizes 0 and 101 refused", async () => {
      const u = await newUser(api.t);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await create(u, createBody(form, "ping", `host${i}.example.com`, { name: `m${i}` }));
        ids.push(r.body.data.id);
      }
      const all = await api.t.call("GET", "/v1/monitors", { headers: u.headers });
      expect(all.body.data).toMatchObject({ total: 3, page: 1, [sizeKey]: 20 });
      expect(all.body.data.items.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
      const p1 = await api.t.call("GET", `/v1/monitors?${sizeKey}=2`, { headers: u.headers });
      const p2 = await api.t.call("GET", `/v1/monitors?${sizeKey}=2&page=2`, { headers: u.headers });
      expect(p1.body.data.items.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
      expect(p2.body.data).toMatchObject({ total: 3, page: 2, [sizeKey]: 2 });
      expect(p2.body.data.items.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
      const beyond = await api.t.call("GET", "/v1/monitors?page=9", { headers: u.headers });
      expect(beyond.status).toBe(200);
      expect(beyond.body.data).toMatchObject({ items: [], total: 3, page: 9 });
      for (const q of [`${sizeKey}=101`, `${sizeKey}=0`, "page=0", `${sizeKey}=abc`]) {
        const bad = await api.t.call("GET", `/v1/monitors?${q}`, { headers: u.headers });
        expect(bad.status, q).toBe(400);
        expect(bad.body.error.code).toBe("validation_error");
        expect(bad.body.error.details[0].path).toBe(`query.${q.split("=")[0]}`);
      }
    });

    it("pause and resume are idempotent", async () => {
      const m = (await create(api.alice, createBody(form, "ping", "example.com"))).body.data;
      const call = (op: string) =>
        api.t.call("POST", `/v1/monitors/${m.id}/${op}`, { headers: api.alice.headers });
      const paused = await call("pause");
      expect(paused.status).toBe(200);
      expect(paused.body.data).toEqual({ id: m.id, status: "paused" });
      const pausedAgain = await call("pause");
      expect(pausedAgain.status).toBe(200);
      expect(pausedAgain.body.data).toEqual({ id: m.id, status: "paused" });
      const whilePaused = await api.t.call("GET", `/v1/monitors/${m.id}`, { headers: api.alice.headers });
      expect(whilePaused.body.data).toMatchObject({ status: "paused", next_run_at: null });
      const resumed = await call("resume");
      expect(resumed.status).toBe(200);
      expect(resumed.body.data).toEqual({ id: m.id, status: "active" });
      const active = await api.t.call("GET", `/v1/monitors/${m.id}`, { headers: api.alice.headers });
      expect(active.body.data.status).toBe("active");
      const next = Date.parse(active.body.data.next_run_at);
      expect((next - phaseMs(m.id, 60)) % 60_000).toBe(0);
      const resumedAgain = await call("resume");
      expect(resumedAgain.status).toBe(200);
      expect(resumedAgain.body.data).toEqual({ id: m.id, status: "active" });
      const same = await api.t.call("GET", `/v1/monitors/${m.id}`, { headers: api.alice.headers });
      expect(same.body.data.next_run_at).toBe(active.body.data.next_run_at);
      await api.t.call("DELETE", `/v1/monitors/${m.id}`, { headers: api.alice.headers });
    });

    it("another account's monitor is a 404 for every operation, like an unknown id", async () => {
      const owner = await newUser(api.t, "owner");
      const other = await newUser(api.t, "other");
      const m = (await create(owner, createBody(form, "ping", "example.com"))).body.data;
      const ops: [string, string, unknown?][] = [
        ["GET", `/v1/monitors/${m.id}`],
        ["PATCH", `/v1/monitors/${m.id}`, { name: "mine now" }],
        ["POST", `/v1/monitors/${m.id}/pause`],
        ["POST", `/v1/monitors/${m.id}/resume`],
        ["DELETE", `/v1/monitors/${m.id}`],
      ];
      for (const [method, path, body] of ops) {
        const theirs = await api.t.call(method, path, { headers: other.headers, body });
        expect(theirs.status, `${method} ${path}`).toBe(404);
        expect(theirs.body.error.code).toBe("not_found");
        const unknown = await api.t.call(method, path.replace(m.id, "mon_doesnotexist"), {
          headers: other.headers,
          body,
        });
        expect(unknown.body.error).toEqual(theirs.body.error);
      }
      const list = await api.t.call("GET", "/v1/monitors", { headers: other.headers });
      expect(list.body.data.total).toBe(0);
      const still = await api.t.call("GET", `/v1/monitors/${m.id}`, { headers: owner.headers });
      expect(still.body.data).toEqual(m);
    });

    it("needs credentials, and the write scope for writes", async () => {
      const anon = await api.t.call("GET", "/v1/monitors");
      expect(anon.status).toBe(401);
      const key = await issueKey(api.t, api.alice.userId, { scopes: ["read"] });
      const headers = keyHeaders(form, key.secret);
      expect((await api.t.call("GET", "/v1/monitors", { headers })).status).toBe(200);
      const write = await api.t.call("POST", "/v1/monitors", {
        headers,
        body: createBody(form, "ping", "example.com"),
      });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe("insufficient_scope");
    });

    it("the plan's monitor count is a 409 beyond it, also for concurrent creates", async () => {
      const limited = db.app(form, {
        VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { monitors: 2, min_monitor_interval_s: 1 } }),
      });
      const u = await newUser(limited);
      const post = (i: number) =>
        limited.call("POST", "/v1/monitors", {
          headers: u.headers,
          body: createBody(form, "ping", `h${i}.example.com`, { interval: 1 }),
        });
      const results = await Promise.all([0, 1, 2, 3, 4].map(post));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 201, 409, 409, 409]);
      const refused = results.find((r) => r.status === 409)!;
      expect(refused.body.error).toMatchObject({ code: "conflict", details: { limit: 2, plan: "free" } });
      const list = await limited.call("GET", "/v1/monitors", { headers: u.headers });
      expect(list.body.data.total).toBe(2);
      // Deleting one makes room again.
      await limited.call("DELETE", `/v1/monitors/${list.body.data.items[0].id}`, { headers: u.headers });
      expect((await post(9)).status).toBe(201);
      // The plan's minimum (1 s here) is what an interval is checked against.
      expect(list.body.data.items[1][intervalKey]).toBe(1);
    });
  });
});
