import { describe, expect, it } from "vitest";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { runTask } from "../../testing/probe-requests.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

describe.each(forms)("http probe headers, body and keyword, Form %s", (form) => {
  const db = useTestDb("pglite");
  const body = (url: string, extra: Record<string, unknown>) =>
    form === "a" ? { target: url, params: extra } : { url, ...extra };
  const p = (f: string) => (form === "a" ? `body.params.${f}` : `body.${f}`);

  it("reach the job spec, keyword_found comes back, and bad ones are 400 on their paths", async () => {
    const t = await db.freshApp(form, {});
    const node = serveNode(t.bus, { id: "n1" }, (job) => {
      const r = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
      r.outcome.detail.keyword_found = true;
      return r;
    });
    await settle();
    const ok = await runTask(
      t,
      form,
      "http",
      body("https://example.com/", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer x" },
        body: '{"a":1}',
        keyword: "up",
      }),
    );
    expect(ok.created.status, JSON.stringify(ok.created.body)).toBe(form === "a" ? 202 : 200);
    expect(node.jobs[0]!.spec.params).toMatchObject({
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"a":1}',
      keyword: "up",
    });
    expect(ok.results[0].keyword_found).toBe(true);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ body: "x" }, p("body"), "only with method POST, PUT, PATCH, DELETE, not GET"],
      [{ method: "HEAD", keyword: "x" }, p("keyword"), "needs a response body: not with method HEAD"],
      [{ headers: { "X Y": "1" } }, `${p("headers")}.X Y`, "header names"],
      [{ headers: { "X-Y": "1\r\nA: b" } }, `${p("headers")}.X-Y`, "visible ASCII"],
      [{ headers: { Host: "a" } }, `${p("headers")}.Host`, "not allowed"],
      [{ method: "POST", body: "a\u0000b" }, p("body"), "U+0000"],
      [{ keyword: "\ud800" }, p("keyword"), "U+0000"],
    ];
    for (const [extra, path, msg] of cases) {
      const res = await t.call("POST", "/v1/probe/http", { body: body("https://example.com/", extra) });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details[0].path).toBe(path);
      expect(res.body.error.details[0].message).toContain(msg);
    }
  });

  it("ip_family: ipv4/ipv6 reach the node as ip_version, any (the default) leaves it to the node", async () => {
    const t = await db.freshApp(form, {});
    const node = serveNode(t.bus, { id: "n1", capabilities: ["ipv4", "ipv6", "http"] });
    await settle();
    for (const [family, version] of [
      ["ipv4", 4],
      ["ipv6", 6],
      ["any", undefined],
      [undefined, undefined],
    ] as const) {
      const extra = family === undefined ? {} : { ip_family: family };
      const run = await runTask(t, form, "http", body("https://example.com/", extra));
      expect(run.created.status, JSON.stringify(run.created.body)).toBe(form === "a" ? 202 : 200);
      expect((node.jobs.at(-1)!.spec.params as { ip_version?: number }).ip_version).toBe(version);
    }
    const res = await t.call("POST", "/v1/probe/http", {
      body: body("https://example.com/", { ip_family: "6" }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe(p("ip_family"));
  });
});
