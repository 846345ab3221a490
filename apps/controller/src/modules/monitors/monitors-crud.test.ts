import { beforeAll, describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser, type TestUser } from "../../testing/accounts.js";
import { dbKinds, type Form, forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { phaseMs } from "./slots.js";

type Type = "http" | "ping" | "tcp" | "dns" | "traceroute";

/** A create body in the form's names: `target` is Form A's text; Form B gets url/host/port/domain. */
function createBody(
  form: Form,
  type: Type,
  target: string,
  extra: { name?: string; config?: Record<string, unknown>; interval?: number } = {},
): Record<string, unknown> {
  const name = extra.name ?? `${type} monitor`;
  const config = extra.config ? { config: extra.config } : {};
  if (form === "a") {
    return {
      name,
      type,
      target,
      ...config,
      ...(extra.interval !== undefined ? { interval_s: extra.interval } : {}),
    };
  }
  const interval = extra.interval !== undefined ? { interval: extra.interval } : {};
  const where: Record<Type, () => Record<string, unknown>> = {
    http: () => ({ url: target }),
    ping: () => ({ host: target }),
    traceroute: () => ({ host: target }),
    dns: () => ({ domain: target }),
    tcp: () => {
      const i = target.lastIndexOf(":");
      return { host: target.slice(0, i), port: Number(target.slice(i + 1)) };
    },
  };
  return { name, type, ...where[type](), ...config, ...interval };
}

describe.each(dbKinds)("monitor CRUD on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const intervalKey = form === "a" ? "interval_s" : "interval";
    const sizeKey = form === "a" ? "limit" : "per_page";
    const targetPath = (type: Type) =>
      form === "a"
        ? "body.target"
        : {
            http: "body.url",
            ping: "body.host",
            traceroute: "body.host",
            tcp: "body.host",
            dns: "body.domain",
          }[type];
    let t: TestApp;
    let alice: TestUser;
    beforeAll(async () => {
      t = db.app(form);
      alice = await newUser(t, "alice");
    });

    const create = (user: TestUser, body: unknown) =>
      t.call("POST", "/v1/monitors", { headers: user.headers, body });

    it("creates, reads, lists, changes and deletes a monitor", async () => {
      const u = await newUser(t);
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

      const got = await t.call("GET", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(m);

      const list = await t.call("GET", "/v1/monitors", { headers: u.headers });
      expect(list.body.data).toEqual({ items: [m], total: 1, page: 1, [sizeKey]: 20 });

      const patched = await t.call("PATCH", `/v1/monitors/${m.id}`, {
        headers: u.headers,
        body: { name: "renamed", [intervalKey]: 120, config: { timeout_ms: 5000, expected_status: [200] } },
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
      const reset = await t.call("PATCH", `/v1/monitors/${m.id}`, {
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
      const counted = await t.call("PATCH", `/v1/monitors/${m.id}`, {
        headers: u.headers,
        body: { config: { node_count: 3 } },
      });
      expect(counted.body.data.config).toMatchObject({ node_count: 3 });
      expect(counted.body.data.config).not.toHaveProperty("nodes");

      const del = await t.call("DELETE", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(del.status).toBe(200);
      expect(del.body.data).toBeNull();
      const gone = await t.call("GET", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe("not_found");
      const again = await t.call("DELETE", `/v1/monitors/${m.id}`, { headers: u.headers });
      expect(again.status).toBe(404);
      const empty = await t.call("GET", "/v1/monitors", { headers: u.headers });
      expect(empty.body.data).toMatchObject({ items: [], total: 0 });
    });

    it("names each type's target as the form does", async () => {
      const u = await newUser(t);
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
        const patched = await t.call("PATCH", `/v1/monitors/${dns.id}`, {
          headers: u.headers,
          body: { record_type: "TXT", server: null },
        });
        expect(patched.status, patched.text).toBe(200);
        expect(patched.body.data).toMatchObject({ record_type: "TXT", server: null });
        const wrongType = await t.call("PATCH", `/v1/monitors/${ping.id}`, {
          headers: u.headers,
          body: { record_type: "TXT" },
        });
        expect(wrongType.status).toBe(400);
        expect(wrongType.body.error.details[0].path).toBe("body.record_type");
      }
    });

    it("pages newest first: defaults, a page past the end, and page sizes 0 and 101 refused", async () => {
      const u = await newUser(t);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await create(u, createBody(form, "ping", `host${i}.example.com`, { name: `m${i}` }));
        ids.push(r.body.data.id);
      }
      const all = await t.call("GET", "/v1/monitors", { headers: u.headers });
      expect(all.body.data).toMatchObject({ total: 3, page: 1, [sizeKey]: 20 });
      expect(all.body.data.items.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
      const p1 = await t.call("GET", `/v1/monitors?${sizeKey}=2`, { headers: u.headers });
      const p2 = await t.call("GET", `/v1/monitors?${sizeKey}=2&page=2`, { headers: u.headers });
      expect(p1.body.data.items.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
      expect(p2.body.data).toMatchObject({ total: 3, page: 2, [sizeKey]: 2 });
      expect(p2.body.data.items.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
      const beyond = await t.call("GET", "/v1/monitors?page=9", { headers: u.headers });
      expect(beyond.status).toBe(200);
      expect(beyond.body.data).toMatchObject({ items: [], total: 3, page: 9 });
      for (const q of [`${sizeKey}=101`, `${sizeKey}=0`, "page=0", `${sizeKey}=abc`]) {
        const bad = await t.call("GET", `/v1/monitors?${q}`, { headers: u.headers });
        expect(bad.status, q).toBe(400);
        expect(bad.body.error.code).toBe("validation_error");
        expect(bad.body.error.details[0].path).toBe(`query.${q.split("=")[0]}`);
      }
    });

    it("refuses invalid bodies with 400 and the field's path", async () => {
      const cases: [string, unknown, string, string?][] = [
        ["bad type", { ...createBody(form, "ping", "example.com"), type: "smtp" }, "body.type"],
        ["http target", createBody(form, "http", "ftp://example.com/"), targetPath("http")],
        ["ping target", createBody(form, "ping", "not a host"), targetPath("ping")],
        ["traceroute target", createBody(form, "traceroute", "bad_host!"), targetPath("traceroute")],
        ["dns target", createBody(form, "dns", "exa mple.com"), targetPath("dns")],
        [
          "tcp target",
          form === "a"
            ? createBody(form, "tcp", "bad host:80")
            : { name: "x", type: "tcp", host: "bad host", port: 80 },
          targetPath("tcp"),
        ],
        [
          "tcp port",
          form === "a"
            ? createBody(form, "tcp", "example.com")
            : { name: "x", type: "tcp", host: "example.com" },
          form === "a" ? "body.config.port" : "body.port",
        ],
        [
          "unknown config key",
          createBody(form, "ping", "example.com", { config: { colour: "red" } }),
          "body.config.colour",
          "unknown_field",
        ],
        [
          "config out of range",
          createBody(form, "ping", "example.com", { config: { count: 11 } }),
          "body.config.count",
        ],
        [
          "keyword with HEAD",
          createBody(form, "http", "https://example.com/", { config: { method: "HEAD", keyword: "ok" } }),
          "body.config.keyword",
        ],
        [
          "nodes and node_count",
          createBody(form, "ping", "example.com", { config: { nodes: ["fra1"], node_count: 2 } }),
          "body.config.node_count",
        ],
        [
          "interval below the plan's minimum",
          createBody(form, "ping", "example.com", { interval: 10 }),
          `body.${intervalKey}`,
        ],
        [
          "interval over a day",
          createBody(form, "ping", "example.com", { interval: 86_401 }),
          `body.${intervalKey}`,
        ],
        ["name too long", createBody(form, "ping", "example.com", { name: "n".repeat(101) }), "body.name"],
        ["blank name", createBody(form, "ping", "example.com", { name: "  " }), "body.name"],
        ["missing name", { type: "ping", [form === "a" ? "target" : "host"]: "example.com" }, "body.name"],
      ];
      if (form === "b") {
        cases.push(["http without url", { name: "x", type: "http" }, "body.url"]);
        cases.push([
          "host on http",
          { name: "x", type: "http", url: "https://e.com/", host: "e.com" },
          "body.host",
        ]);
        cases.push([
          "a top-level field in config",
          { name: "x", type: "dns", domain: "example.com", config: { record_type: "MX" } },
          "body.config.record_type",
          "unknown_field",
        ]);
      } else {
        cases.push(["missing target", { name: "x", type: "ping" }, "body.target"]);
      }
      for (const [what, body, path, code] of cases) {
        const res = await create(alice, body);
        expect(res.status, `${what}: ${res.text}`).toBe(400);
        expect(res.body.error.code, what).toBe(code ?? "validation_error");
        expect(res.body.error.details[0].path, what).toBe(path);
      }
      const tooShort = await create(alice, createBody(form, "ping", "example.com", { interval: 10 }));
      expect(tooShort.body.error.message).toContain("at least 30 seconds");
      expect(tooShort.body.error.details[0].minimum).toBe(30);
      const list = await t.call("GET", "/v1/monitors", { headers: alice.headers });
      expect(list.body.data.total).toBe(0);
    });

    it("PATCH refuses fields it does not take, and bad values, with 400", async () => {
      const m = (await create(alice, createBody(form, "ping", "example.com"))).body.data;
      const bad: [unknown, string, string][] = [
        [
          form === "a" ? { target: "example.org" } : { url: "example.org" },
          "unknown_field",
          form === "a" ? "body.target" : "body.url",
        ],
        [{ type: "http" }, "unknown_field", "body.type"],
        [{ [intervalKey]: 5 }, "validation_error", `body.${intervalKey}`],
        [{ config: { count: 0 } }, "validation_error", "body.config.count"],
        [{ config: { colour: null } }, "unknown_field", "body.config.colour"],
        [{ name: "" }, "validation_error", "body.name"],
      ];
      for (const [body, code, path] of bad) {
        const res = await t.call("PATCH", `/v1/monitors/${m.id}`, { headers: alice.headers, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe(code);
        expect(res.body.error.details[0].path).toBe(path);
      }
      const after = await t.call("GET", `/v1/monitors/${m.id}`, { headers: alice.headers });
      expect(after.body.data).toEqual(m);
      await t.call("DELETE", `/v1/monitors/${m.id}`, { headers: alice.headers });
    });

    it("pause and resume are idempotent", async () => {
      const m = (await create(alice, createBody(form, "ping", "example.com"))).body.data;
      const call = (op: string) => t.call("POST", `/v1/monitors/${m.id}/${op}`, { headers: alice.headers });
      const paused = await call("pause");
      expect(paused.status).toBe(200);
      expect(paused.body.data).toEqual({ id: m.id, status: "paused" });
      const pausedAgain = await call("pause");
      expect(pausedAgain.status).toBe(200);
      expect(pausedAgain.body.data).toEqual({ id: m.id, status: "paused" });
      const whilePaused = await t.call("GET", `/v1/monitors/${m.id}`, { headers: alice.headers });
      expect(whilePaused.body.data).toMatchObject({ status: "paused", next_run_at: null });
      const resumed = await call("resume");
      expect(resumed.status).toBe(200);
      expect(resumed.body.data).toEqual({ id: m.id, status: "active" });
      const active = await t.call("GET", `/v1/monitors/${m.id}`, { headers: alice.headers });
      expect(active.body.data.status).toBe("active");
      const next = Date.parse(active.body.data.next_run_at);
      expect((next - phaseMs(m.id, 60)) % 60_000).toBe(0);
      const resumedAgain = await call("resume");
      expect(resumedAgain.status).toBe(200);
      expect(resumedAgain.body.data).toEqual({ id: m.id, status: "active" });
      const same = await t.call("GET", `/v1/monitors/${m.id}`, { headers: alice.headers });
      expect(same.body.data.next_run_at).toBe(active.body.data.next_run_at);
      await t.call("DELETE", `/v1/monitors/${m.id}`, { headers: alice.headers });
    });

    it("another account's monitor is a 404 for every operation, like an unknown id", async () => {
      const owner = await newUser(t, "owner");
      const other = await newUser(t, "other");
      const m = (await create(owner, createBody(form, "ping", "example.com"))).body.data;
      const ops: [string, string, unknown?][] = [
        ["GET", `/v1/monitors/${m.id}`],
        ["PATCH", `/v1/monitors/${m.id}`, { name: "mine now" }],
        ["POST", `/v1/monitors/${m.id}/pause`],
        ["POST", `/v1/monitors/${m.id}/resume`],
        ["DELETE", `/v1/monitors/${m.id}`],
      ];
      for (const [method, path, body] of ops) {
        const theirs = await t.call(method, path, { headers: other.headers, body });
        expect(theirs.status, `${method} ${path}`).toBe(404);
        expect(theirs.body.error.code).toBe("not_found");
        const unknown = await t.call(method, path.replace(m.id, "mon_doesnotexist"), {
          headers: other.headers,
          body,
        });
        expect(unknown.body.error).toEqual(theirs.body.error);
      }
      const list = await t.call("GET", "/v1/monitors", { headers: other.headers });
      expect(list.body.data.total).toBe(0);
      const still = await t.call("GET", `/v1/monitors/${m.id}`, { headers: owner.headers });
      expect(still.body.data).toEqual(m);
    });

    it("needs credentials, and the write scope for writes", async () => {
      const anon = await t.call("GET", "/v1/monitors");
      expect(anon.status).toBe(401);
      const key = await issueKey(t, alice.userId, { scopes: ["read"] });
      const headers = keyHeaders(form, key.secret);
      expect((await t.call("GET", "/v1/monitors", { headers })).status).toBe(200);
      const write = await t.call("POST", "/v1/monitors", {
        headers,
        body: createBody(form, "ping", "example.com"),
      });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe("insufficient_scope");
    });

    it("a literal private or reserved target is 422 target_not_allowed", async () => {
      const guarded = db.app(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "false" });
      const u = await newUser(guarded);
      const cases: [unknown, string][] = [
        [createBody(form, "ping", "10.0.0.1"), targetPath("ping")],
        [createBody(form, "http", "http://169.254.169.254/latest/"), targetPath("http")],
        [createBody(form, "tcp", "127.0.0.1:22"), targetPath("tcp")],
        [
          form === "a"
            ? createBody(form, "dns", "example.com", { config: { server: "192.168.1.1" } })
            : { ...createBody(form, "dns", "example.com"), server: "192.168.1.1" },
          form === "a" ? "body.config.server" : "body.server",
        ],
      ];
      for (const [body, path] of cases) {
        const res = await guarded.call("POST", "/v1/monitors", { headers: u.headers, body });
        expect(res.status, res.text).toBe(422);
        expect(res.body.error.code).toBe("target_not_allowed");
        expect(res.body.error.details[0].path).toBe(path);
      }
      // A PATCH that points a DNS monitor's server at a private address is refused the same way.
      const dns = await guarded.call("POST", "/v1/monitors", {
        headers: u.headers,
        body: createBody(form, "dns", "example.com"),
      });
      const patch = form === "a" ? { config: { server: "10.1.1.1" } } : { server: "10.1.1.1" };
      const res = await guarded.call("PATCH", `/v1/monitors/${dns.body.data.id}`, {
        headers: u.headers,
        body: patch,
      });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].path).toBe(form === "a" ? "body.config.server" : "body.server");
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
