import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveNode, settle } from "../../testing/agents.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const long = (n: number) => `${"a".repeat(60)}.`.repeat(Math.ceil(n / 61)).slice(0, n);
const ids = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);

/** [type, body, expected status, expected first detail path] per form. */
const cases = {
  a: [
    ["ping", { target: "example.com", params: { count: 51 } }, 400, "body.params.count"],
    ["ping", { target: "example.com", params: { count: 0 } }, 400, "body.params.count"],
    ["ping", { target: "example.com", params: { count: 50 } }, 202, null],
    ["ping", { target: "example.com", params: { timeout_ms: 30_001 } }, 400, "body.params.timeout_ms"],
    ["http", { target: "https://example.com/", params: { timeout_ms: 999 } }, 400, "body.params.timeout_ms"],
    [
      "http",
      { target: "https://example.com/", params: { timeout_ms: 30_001 } },
      400,
      "body.params.timeout_ms",
    ],
    ["http", { target: "ftp://example.com/" }, 400, "body.target"],
    ["http", { target: `https://${long(2100)}/` }, 400, "body.target"],
    ["http", { target: "https://example.com/", params: { method: "BREW" } }, 400, "body.params.method"],
    ["tcp", { target: "example.com" }, 400, "body.params.port"],
    ["tcp", { target: "example.com:0" }, 400, "body.target"],
    ["tcp", { target: "example.com", params: { port: 65_536 } }, 400, "body.params.port"],
    ["tcp", { target: "example.com:443", params: { port: 80 } }, 400, "body.params.port"],
    ["tcp", { target: "exa mple.com:443" }, 400, "body.target"],
    ["tcp", { target: "[2606:4700:4700::1111]:443" }, 202, null],
    ["dns", { target: "example.com", params: { record_type: "PTR" } }, 400, "body.params.record_type"],
    ["dns", { target: "example.com", params: { server: "1.1.1.1:99999" } }, 400, "body.params.server"],
    ["dns", { target: long(254) }, 400, "body.target"],
    ["traceroute", { target: "example.com", params: { max_hops: 65 } }, 400, "body.params.max_hops"],
    ["traceroute", { target: "example.com", node_ids: ids(51) }, 400, "body.node_ids"],
    ["traceroute", { target: "example.com", node_ids: ["Bad.Id"] }, 400, "body.node_ids.0"],
    ["ping", { target: "example.com", params: { size: 1501 } }, 400, "body.params.size"],
    ["ping", { target: "example.com", params: { ttl: 64 } }, 400, "body.params.ttl"],
    ["ping", { target: "example.com", host: "x" }, 400, "body.host"],
    ["ping", {}, 400, "body.target"],
  ],
  b: [
    ["ping", { host: "example.com", count: 11 }, 400, "body.count"],
    ["ping", { host: "example.com", count: 10 }, 200, null],
    ["ping", { host: "example.com", timeout: 31 }, 400, "body.timeout"],
    ["ping", { host: "example.com", timeout: 0 }, 400, "body.timeout"],
    ["http", { url: "https://example.com/", timeout: 31 }, 400, "body.timeout"],
    ["http", { url: "https://example.com/", timeout: 1.5 }, 400, "body.timeout"],
    ["http", { url: "not a url" }, 400, "body.url"],
    ["tcp", { host: "example.com" }, 400, "body.port"],
    ["tcp", { host: "example.com", port: 0 }, 400, "body.port"],
    ["tcp", { host: "example.com", port: 65_536 }, 400, "body.port"],
    ["tcp", { host: long(254), port: 80 }, 400, "body.host"],
    ["tcp", { host: "example.com", port: 65_535 }, 200, null],
    ["dns", { domain: "example.com", record_type: "ANY" }, 400, "body.record_type"],
    ["dns", { domain: "exa mple.com" }, 400, "body.domain"],
    ["traceroute", { host: "example.com", max_hops: 0 }, 400, "body.max_hops"],
    ["traceroute", { host: "example.com", nodes: ids(51) }, 400, "body.nodes"],
    ["http", { url: "https://example.com/", follow: true }, 400, "body.follow"],
    ["http", {}, 400, "body.url"],
  ],
} as const;

describe.each(dbKinds)("probe request limits on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await db.freshApp(form);
      serveNode(t.bus, { id: "n0" });
      await settle();
    });
    afterAll(async () => {
      await t.drain();
      await t.presence.stop();
    });

    it.each(cases[form].map((c) => [c[0], JSON.stringify(c[1]).slice(0, 80), ...c] as const))(
      "%s %s",
      async (_t, _label, type, body, status, path) => {
        const res = await t.call("POST", `/v1/probe/${type}`, { body });
        expect(res.status, res.text).toBe(status);
        if (path) {
          expect(["validation_error", "unknown_field"]).toContain(res.body.error.code);
          expect(res.body.error.details[0].path).toBe(path);
        }
      },
    );

    it("malformed JSON → 400 malformed_json", async () => {
      const res = await t.call("POST", "/v1/probe/tcp", { body: "{nope" });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("malformed_json");
    });
  });
});
