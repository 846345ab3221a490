import { describe, expect, it } from "vitest";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { runTask } from "../../testing/probe-requests.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

describe.each(forms)("ping size, dont_fragment and pmtu, Form %s", (form) => {
  const db = useTestDb("pglite");
  const body = (host: string, extra: Record<string, unknown>) =>
    form === "a" ? { target: host, params: extra } : { host, ...extra };
  const p = (f: string) => (form === "a" ? `body.params.${f}` : `body.${f}`);

  it("reach the job spec, pmtu comes back per node, bad values are 400 on their paths", async () => {
    const t = await db.freshApp(form, {});
    const node = serveNode(t.bus, { id: "n1" }, (job) => {
      const r = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
      r.outcome.detail.pmtu = 1280;
      r.outcome.detail.packet_size = 1400;
      return r;
    });
    await settle();
    const ok = await runTask(
      t,
      form,
      "ping",
      body("example.com", { size: 1400, dont_fragment: true, pmtu: true }),
    );
    expect(ok.created.status, JSON.stringify(ok.created.body)).toBe(form === "a" ? 202 : 200);
    expect(node.jobs[0]!.spec.params).toMatchObject({ size: 1400, dont_fragment: true, pmtu: true });
    expect(ok.results[0]).toMatchObject({ pmtu: 1280, packet_size: 1400 });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ size: 1501 }, p("size"), "1500"],
      [{ size: 27 }, p("size"), "28"],
      [{ size: 100.5 }, p("size"), "whole number"],
      [{ dont_fragment: "yes" }, p("dont_fragment"), "boolean"],
      [{ pmtu: 1 }, p("pmtu"), "boolean"],
    ];
    for (const [extra, path, msg] of cases) {
      const res = await t.call("POST", "/v1/probe/ping", { body: body("example.com", extra) });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details[0].path).toBe(path);
      expect(res.body.error.details[0].message).toContain(msg);
    }
  });

  it("without the options the job carries none of them (older agents see what they know)", async () => {
    const t = await db.freshApp(form, {});
    const node = serveNode(t.bus, { id: "n1" });
    await settle();
    const ok = await runTask(t, form, "ping", body("example.com", {}));
    expect(ok.created.status).toBe(form === "a" ? 202 : 200);
    const params = node.jobs[0]!.spec.params as Record<string, unknown>;
    expect(params).not.toHaveProperty("size");
    expect(params).not.toHaveProperty("dont_fragment");
    expect(params).not.toHaveProperty("pmtu");
  });
});

describe.each(forms)("dns protocol, flags, nsid and trace, Form %s", (form) => {
  const db = useTestDb("pglite");
  const body = (domain: string, extra: Record<string, unknown>) =>
    form === "a" ? { target: domain, params: extra } : { domain, ...extra };
  const p = (f: string) => (form === "a" ? `body.params.${f}` : `body.${f}`);

  it("reach the job spec; nsid and trace come back; conflicts are 400 on their paths", async () => {
    const t = await db.freshApp(form, {});
    const node = serveNode(t.bus, { id: "n1" }, (job) => {
      const r = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
      r.outcome.detail.nsid = "ns1.lab";
      return r;
    });
    await settle();
    const doh = {
      server: "https://dns.example/dns-query",
      protocol: "https",
      doh_method: "GET",
      dnssec: true,
      checking_disabled: true,
      nsid: true,
    };
    const ok = await runTask(t, form, "dns", body("example.com", doh));
    expect(ok.created.status, JSON.stringify(ok.created.body)).toBe(form === "a" ? 202 : 200);
    expect(node.jobs[0]!.spec.params).toMatchObject(doh);
    expect(ok.results[0]).toMatchObject({ nsid: "ns1.lab" });
    const traced = await runTask(t, form, "dns", body("example.com", { trace: true }));
    expect(traced.created.status, JSON.stringify(traced.created.body)).toBe(form === "a" ? 202 : 200);
    expect(node.jobs[1]!.spec.params).toMatchObject({ trace: true });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ protocol: "https" }, p("server"), "needs the DoH URL"],
      [{ protocol: "https", server: "1.1.1.1" }, p("server"), "https:// URL"],
      [{ server: "https://dns.example/dns-query" }, p("server"), "only with protocol https"],
      [{ protocol: "https", server: "https://u:p@dns.example/q" }, p("server"), "https:// URL"],
      [{ doh_method: "GET" }, p("doh_method"), "only with protocol https"],
      [{ trace: true, server: "192.0.2.1" }, p("server"), "not with trace"],
      [{ trace: true, protocol: "tls" }, p("protocol"), "udp or tcp only"],
      [{ protocol: "quic" }, p("protocol"), "udp"],
      [{ nsid: "yes" }, p("nsid"), "boolean"],
    ];
    for (const [extra, path, msg] of cases) {
      const res = await t.call("POST", "/v1/probe/dns", { body: body("example.com", extra) });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details[0].path).toBe(path);
      expect(res.body.error.details[0].message).toContain(msg);
    }
  });

  it("a DoH URL whose host is a refused address is refused like any server", async () => {
    const t = await db.freshApp(form, {});
    serveNode(t.bus, { id: "n1" });
    await settle();
    const res = await t.call("POST", "/v1/probe/dns", {
      body: body("example.com", { protocol: "https", server: "https://127.0.0.1/dns-query" }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
  });
});

describe.each(forms)("http http2, Form %s", (form) => {
  const db = useTestDb("pglite");
  const body = (url: string, extra: Record<string, unknown>) =>
    form === "a" ? { target: url, params: extra } : { url, ...extra };
  const p = (f: string) => (form === "a" ? `body.params.${f}` : `body.${f}`);

  it("reaches the job spec; http_version and the download phase come back; a non-boolean is 400", async () => {
    const t = await db.freshApp(form, {});
    const node = serveNode(t.bus, { id: "n1" }, (job) => {
      const r = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
      r.outcome.detail.http_version = "2";
      (r.outcome.detail.timings as Record<string, unknown>).download = 1.5;
      return r;
    });
    await settle();
    const ok = await runTask(t, form, "http", body("https://example.com/", { http2: true }));
    expect(ok.created.status, JSON.stringify(ok.created.body)).toBe(form === "a" ? 202 : 200);
    expect(node.jobs[0]!.spec.params).toMatchObject({ http2: true });
    expect(ok.results[0]).toMatchObject({ http_version: "2", timings: { download: 1.5 } });
    const res = await t.call("POST", "/v1/probe/http", {
      body: body("https://example.com/", { http2: "yes" }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe(p("http2"));
  });
});
