import { describe, expect, it } from "vitest";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { runTask, tcpBody } from "../../testing/probe-requests.js";
import { dbKinds, type Form, forms, planLimitsEnv } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { type ProbeDeps, type ProbeRequest, queueProbeTask, runProbeTask } from "./service.js";

/**
 * What the controller makes of awkward input before and after the nodes: other notations of IPv4,
 * characters PostgreSQL cannot store, IPv6 targets and redirect options. Both forms, both databases.
 */
describe.each(dbKinds)("probe input on %s", (kind) => {
  const db = useTestDb(kind);
  const fresh = (form: Form, env: Record<string, string> = {}) =>
    db.freshApp(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "false", ...env });

  describe.each(forms)("form %s", (form) => {
    const hostBody = (host: string) => (form === "a" ? { target: host } : { host });
    const serverBody = (server: string) =>
      form === "a" ? { target: "example.com", params: { server } } : { domain: "example.com", server };
    const httpBody = (url: string, extra: Record<string, unknown> = {}) =>
      form === "a"
        ? { target: url, ...(Object.keys(extra).length ? { params: extra } : {}) }
        : { url, ...extra };

    it("IPv4 in other notations (127.1, 2130706433, 0x7f.1, 0177.0.0.1) is 422 before any node is asked", async () => {
      const t = await fresh(form);
      const node = serveNode(t.bus, { id: "n1" });
      await settle();
      const cases: [string, unknown, string, string][] = [
        ["ping", hostBody("127.1"), form === "a" ? "body.target" : "body.host", "127.0.0.1"],
        ["traceroute", hostBody("2130706433"), form === "a" ? "body.target" : "body.host", "127.0.0.1"],
        ["tcp", tcpBody(form, "0x7f.1", 80), form === "a" ? "body.target" : "body.host", "127.0.0.1"],
        ["ping", hostBody("0"), form === "a" ? "body.target" : "body.host", "0.0.0.0"],
        [
          "dns",
          serverBody("0177.0.0.1:53"),
          form === "a" ? "body.params.server" : "body.server",
          "127.0.0.1",
        ],
        ["dns", serverBody("0xa000001"), form === "a" ? "body.params.server" : "body.server", "10.0.0.1"],
      ];
      for (const [type, body, path, ip] of cases) {
        const res = await t.call("POST", `/v1/probe/${type}`, { body });
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error.code).toBe("target_not_allowed");
        expect(res.body.error.details[0].path).toBe(path);
        expect(res.body.error.message).toContain(`(${ip})`);
      }
      expect(node.jobs).toHaveLength(0);
      // A public address written the same way is fine: it goes to the (fake) node as the caller wrote it.
      const ok = await runTask(t, form, "ping", hostBody("3221226241")); // 192.0.3.1
      expect(ok.results).toHaveLength(1);
      expect(node.jobs[0]!.spec).toMatchObject({ params: { host: "3221226241" } });
    });

    it("a numeric last label that is no IPv4 address, or brackets around a name, is a 400", async () => {
      const t = await fresh(form);
      serveNode(t.bus, { id: "n1" });
      await settle();
      for (const [type, body] of [
        ["ping", hostBody("256.1.1.1")],
        ["ping", hostBody("1.2.3.4.5")],
        ["traceroute", hostBody("[x.invalid]")],
        ["tcp", form === "a" ? { target: "[x.invalid]:80" } : { host: "[x.invalid]", port: 80 }],
        ["dns", serverBody("999.1.1.1")],
      ] as const) {
        const res = await t.call("POST", `/v1/probe/${type}`, { body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe("validation_error");
      }
      // Names that merely contain digits stay names.
      const named = await t.call("POST", "/v1/probe/ping", { body: hostBody("1.2.3.example.com") });
      expect(named.status).toBe(form === "a" ? 202 : 200);
    });

    it("a URL with a control character or an unpaired surrogate is a 400 and stores nothing", async () => {
      const t = await fresh(form);
      const node = serveNode(t.bus, { id: "n1" });
      await settle();
      for (const url of [
        "http://x.invalid/\u0000",
        "http://x.invalid/?a=\ud800",
        "http://x.invalid/#\u001f",
      ]) {
        const res = await t.call("POST", "/v1/probe/http", { body: httpBody(url) });
        expect(res.status, JSON.stringify(url)).toBe(400);
        expect(res.body.error.code).toBe("validation_error");
        expect(res.body.error.details[0].path).toBe(form === "a" ? "body.target" : "body.url");
      }
      expect(node.jobs).toHaveLength(0);
      // A paired surrogate (an emoji) is fine.
      const emoji = await t.call("POST", "/v1/probe/http", { body: httpBody("http://x.invalid/\u{1f600}") });
      expect(emoji.status).toBe(form === "a" ? 202 : 200);
    });

    it("an http URL with port 0 or credentials is a 400; an IDN host reaches the node in ASCII", async () => {
      const t = await fresh(form);
      const node = serveNode(t.bus, { id: "n1" });
      await settle();
      for (const [url, message] of [
        ["http://x.invalid:0/", "port must be 1–65535"],
        ["https://user:secret@x.invalid/", "must not carry credentials"],
      ] as const) {
        const res = await t.call("POST", "/v1/probe/http", { body: httpBody(url) });
        expect(res.status, url).toBe(400);
        expect(res.body.error.message).toContain(message);
      }
      expect(node.jobs).toHaveLength(0);
      await runTask(t, form, "ping", hostBody("bücher.example"));
      await runTask(
        t,
        form,
        "dns",
        form === "a" ? { target: "münchen.example" } : { domain: "münchen.example" },
      );
      await runTask(t, form, "tcp", tcpBody(form, "bücher.example", 443));
      expect(node.jobs.map((j) => j.spec.params)).toMatchObject([
        { host: "xn--bcher-kva.example" },
        { domain: "xn--mnchen-3ya.example" },
        { host: "xn--bcher-kva.example", port: 443 },
      ]);
    });

    it("a pasted URL or host:port where a host is meant: its host is probed (tcp: and its port)", async () => {
      const t = await fresh(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
      const node = serveNode(t.bus, { id: "n1" });
      await settle();
      const ping = await runTask(t, form, "ping", hostBody("https://Example.com:8443/status?x=1"));
      await runTask(t, form, "traceroute", hostBody("[2001:db8::1]:443"));
      await runTask(
        t,
        form,
        "dns",
        form === "a" ? { target: "example.org:53" } : { domain: "http://example.org/x" },
      );
      await runTask(
        t,
        form,
        "tcp",
        form === "a" ? { target: "https://example.net/" } : { host: "example.net:443", port: 443 },
      );
      const v6Url = "http://[2001:db8::2]:8080/";
      await runTask(t, form, "tcp", form === "a" ? { target: v6Url } : { host: v6Url, port: 8080 });
      expect(node.jobs.map((j) => j.spec.params)).toMatchObject([
        { host: "example.com" },
        { host: "2001:db8::1" },
        { domain: "example.org" },
        { host: "example.net", port: 443 },
        { host: "2001:db8::2", port: 8080 },
      ]);
      await t.drain();
      const stored = await t.call("GET", `/v1/probe/tasks/${ping.created.body.data.task_id}`);
      expect(stored.body.data.target).toBe("example.com");
      // A port that contradicts the port field, or a host part that is no host, is still a 400.
      const [tcpPath, hostPath] =
        form === "a" ? ["body.params.port", "body.target"] : ["body.port", "body.host"];
      const bad = await t.call("POST", "/v1/probe/tcp", {
        body:
          form === "a"
            ? { target: "example.net:80", params: { port: 443 } }
            : { host: "example.net:80", port: 443 },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe(tcpPath);
      const notHost = await t.call("POST", "/v1/probe/ping", { body: hostBody("https://exa mple.com/") });
      expect(notHost.status).toBe(400);
      expect(notHost.body.error.details[0].path).toBe(hostPath);
    });

    it("a tcp task's stored target names host and port in both forms", async () => {
      const t = await fresh(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
      serveNode(t.bus, { id: "n1" });
      await settle();
      if (form === "a") {
        const viaParams = await runTask(t, form, "tcp", { target: "192.0.2.11", params: { port: 8443 } });
        expect(viaParams.task.target).toBe("192.0.2.11:8443");
      }
      const v4 = await runTask(t, form, "tcp", tcpBody(form, "192.0.2.10", 443));
      expect(
        v4.task.target ?? (await t.call("GET", `/v1/probe/tasks/${v4.task.task_id}`)).body.data.target,
      ).toBe("192.0.2.10:443");
      const v6 = await runTask(
        t,
        form,
        "tcp",
        tcpBody(form, form === "a" ? "[2001:db8::10]" : "2001:db8::10", 25),
      );
      await t.drain();
      const again = await t.call("GET", `/v1/probe/tasks/${v6.created.body.data.task_id}`);
      expect(again.body.data.target).toBe("[2001:db8::10]:25");
    });

    it("NUL and unpaired surrogates in a node's result become U+FFFD: answered, stored and read back alike", async () => {
      const t = await fresh(form);
      serveNode(t.bus, { id: "bin" }, (job) => {
        const reply = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
        reply.outcome.detail.body_excerpt = "GIF89a\u0000\u0000\ud800end";
        reply.outcome.detail.headers = { "x-odd\u0000": "a\u0000b" };
        return reply;
      });
      await settle();
      const { created, task, results } = await runTask(t, form, "http", httpBody("http://x.invalid/"));
      expect(task.status).toBe("done");
      expect(results[0]).toMatchObject({
        success: true,
        body_excerpt: "GIF89a\ufffd\ufffd\ufffdend",
        headers: { "x-odd\ufffd": "a\ufffdb" },
      });
      await t.drain();
      const again = await t.call("GET", `/v1/probe/tasks/${created.body.data.task_id}`);
      expect(again.status).toBe(200);
      expect(again.body.data.results).toEqual(results);
    });

    it("an IPv6 literal target goes to nodes that have IPv6 when any does", async () => {
      const t = await fresh(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
      serveNode(t.bus, { id: "v4a", country: "DE", capabilities: ["ipv4", "tcp"] });
      serveNode(t.bus, { id: "v4b", country: "US", capabilities: ["ipv4", "tcp"] });
      serveNode(t.bus, { id: "v6", country: "SG", capabilities: ["ipv4", "ipv6", "tcp"] });
      await settle();
      const v6 = await runTask(
        t,
        form,
        "tcp",
        tcpBody(form, form === "a" ? "[2001:db8::10]" : "2001:db8::10", 443),
      );
      expect(v6.results.map((r) => r.node_id)).toEqual(["v6"]);
      if (form === "a") {
        const viaParams = await runTask(t, form, "tcp", { target: "192.0.2.11", params: { port: 8443 } });
        expect(viaParams.task.target).toBe("192.0.2.11:8443");
      }
      const v4 = await runTask(t, form, "tcp", tcpBody(form, "192.0.2.10", 443));
      expect(v4.results.map((r) => r.node_id).sort()).toEqual(["v4a", "v4b", "v6"]);
    });

    it("an IPv6 target with no IPv6 node still runs on the online nodes, which report what they can", async () => {
      const t = await fresh(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
      serveNode(t.bus, { id: "v4", capabilities: ["ipv4", "tcp"] });
      await settle();
      const res = await runTask(
        t,
        form,
        "tcp",
        tcpBody(form, form === "a" ? "[2001:db8::10]" : "2001:db8::10", 443),
      );
      expect(res.results.map((r) => r.node_id)).toEqual(["v4"]);
    });

    it("follow_redirects and max_redirects reach the node; the defaults are off and 5", async () => {
      const t = await fresh(form);
      const node = serveNode(t.bus, { id: "n1" });
      await settle();
      await runTask(t, form, "http", httpBody("http://x.invalid/"));
      await runTask(
        t,
        form,
        "http",
        httpBody("http://x.invalid/", { follow_redirects: true, max_redirects: 2 }),
      );
      expect(node.jobs.map((j) => j.spec.params)).toMatchObject([
        { follow_redirects: false, max_redirects: 5 },
        { follow_redirects: true, max_redirects: 2 },
      ]);
      const tooMany = await t.call("POST", "/v1/probe/http", {
        body: httpBody("http://x.invalid/", { max_redirects: 11 }),
      });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error.details[0].path).toBe(
        form === "a" ? "body.params.max_redirects" : "body.max_redirects",
      );
    });

    it("the error code follows the first issue: a missing field before an unknown one is validation_error", async () => {
      const t = await fresh(form);
      const wrongForm = form === "a" ? { host: "x.invalid" } : { target: "x.invalid" };
      const res = await t.call("POST", "/v1/probe/ping", { body: wrongForm });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.message).toBe(
        `${res.body.error.details[0].path}: ${res.body.error.details[0].message}`,
      );
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(
        form === "a" ? "body.host" : "body.target",
      );
      const onlyUnknown = await t.call("POST", "/v1/probe/ping", {
        body: { ...(form === "a" ? { target: "x.invalid" } : { host: "x.invalid" }), colour: "red" },
      });
      expect(onlyUnknown.body.error.code).toBe("unknown_field");
    });
  });

  it("while the link to the nodes is down, both forms refuse at once with 503 and Retry-After", async () => {
    const deps = {
      transport: { connected: () => false },
      writer: { full: false },
      allowPrivateTargets: false,
    } as unknown as ProbeDeps;
    const req = {
      spec: { type: "tcp", params: { host: "192.0.3.1", port: 443, timeout_ms: 5000 } },
      target: "192.0.3.1:443",
      paths: { target: "body.host", server: "body.server", nodes: "nodes" },
      caller: { kind: "ip", ip: "192.0.2.1" },
    } as ProbeRequest;
    for (const run of [runProbeTask, queueProbeTask]) {
      const started = Date.now();
      await expect(run(deps, req)).rejects.toMatchObject({
        code: "unavailable",
        status: 503,
        headers: { "Retry-After": "5" },
      });
      expect(Date.now() - started).toBeLessThan(100);
    }
  });

  it("Form A ignores X-API-Key on public routes: the call is anonymous, not a 401", async () => {
    const t = await fresh("a", {
      VANTAGE_PLAN_LIMITS: planLimitsEnv({ anonymous: { node_probes_per_hour: 100 } }),
    });
    serveNode(t.bus, { id: "n1" });
    await settle();
    const headers = { "x-api-key": "garbage" };
    const probe = await t.call("POST", "/v1/probe/ping", { body: { target: "x.invalid" }, headers });
    expect(probe.status).toBe(202);
    expect(probe.headers.get("ratelimit-limit")).toBe("100");
    const quota = await t.call("GET", "/v1/probe/quota", { headers });
    expect(quota.status).toBe(200);
    expect(quota.body.data.caller).toBe("ip");
    // Form B takes the header, so a bad key there is a 401.
    const b = await fresh("b");
    const refused = await b.call("GET", "/v1/probe/quota", { headers });
    expect(refused.status).toBe(401);
  });
});
