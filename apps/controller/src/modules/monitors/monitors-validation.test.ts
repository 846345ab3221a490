import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { dbKinds, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createBody, formFields, useMonitorsApi } from "./testing/monitors-api.js";

/** Monitor bodies the API refuses: invalid fields with their path (400), fields PATCH does not take, and private or reserved targets (422). */
describe.each(dbKinds)("monitor bodies refused on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const { intervalKey, targetPath } = formFields(form);
    const api = useMonitorsApi(db, form);
    const { create } = api;

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
          "quorum above the node count",
          createBody(form, "ping", "example.com", { config: { node_count: 2, quorum: 3 } }),
          "body.config.quorum",
        ],
        [
          "locations with named nodes",
          createBody(form, "ping", "example.com", {
            config: { nodes: ["fra-1"], locations: { countries: ["DE"] } },
          }),
          "body.config.locations",
        ],
        [
          "location country not a code",
          createBody(form, "ping", "example.com", { config: { locations: { countries: ["Germany"] } } }),
          "body.config.locations.countries.0",
        ],
        [
          "expected_status out of range",
          createBody(form, "http", "https://example.com/", { config: { expected_status: 700 } }),
          "body.config.expected_status.0",
        ],
        [
          "expected_status list item",
          createBody(form, "http", "https://example.com/", { config: { expected_status: [200, "6xx"] } }),
          "body.config.expected_status.1",
        ],
        [
          "expected_status empty list",
          createBody(form, "http", "https://example.com/", { config: { expected_status: [] } }),
          "body.config.expected_status",
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
        const res = await create(api.alice, body);
        expect(res.status, `${what}: ${res.text}`).toBe(400);
        expect(res.body.error.code, what).toBe(code ?? "validation_error");
        expect(res.body.error.details[0].path, what).toBe(path);
      }
      const tooShort = await create(api.alice, createBody(form, "ping", "example.com", { interval: 10 }));
      expect(tooShort.body.error.message).toContain("at least 30 seconds");
      expect(tooShort.body.error.details[0].minimum).toBe(30);
      const list = await api.t.call("GET", "/v1/monitors", { headers: api.alice.headers });
      expect(list.body.data.total).toBe(0);
    });

    it("PATCH refuses fields it does not take, and bad values, with 400", async () => {
      const m = (await create(api.alice, createBody(form, "ping", "example.com"))).body.data;
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
        const res = await api.t.call("PATCH", `/v1/monitors/${m.id}`, { headers: api.alice.headers, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe(code);
        expect(res.body.error.details[0].path).toBe(path);
      }
      const after = await api.t.call("GET", `/v1/monitors/${m.id}`, { headers: api.alice.headers });
      expect(after.body.data).toEqual(m);
      await api.t.call("DELETE", `/v1/monitors/${m.id}`, { headers: api.alice.headers });
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
  });
});
