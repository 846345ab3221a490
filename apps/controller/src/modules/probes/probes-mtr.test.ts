import { describe, expect, it } from "vitest";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { runTask } from "../../testing/probe-requests.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * The mtr probe type through both forms, and networks per hop: a simulated agent answers with a path
 * through a private router and two public networks (addresses only; nothing is sent anywhere), and the
 * controller adds each hop's ASN, network and country from the shipped IP data, and the AS path.
 */
const path = ["10.0.0.1", "8.8.8.8", "8.8.4.4", "1.1.1.1"];
const mtrHop = (ip: string, i: number) => ({
  hop: i + 1,
  ip,
  ips: [ip],
  sent: 10,
  received: 9,
  loss_pct: 10,
  last: 1,
  avg: 1,
  best: 1,
  worst: 1,
  stdev: 0,
});

describe.each(forms)("mtr probe and networks per hop, Form %s", (form) => {
  const db = useTestDb("pglite");
  const body = (host: string, extra: Record<string, unknown>) =>
    form === "a" ? { target: host, params: extra } : { host, ...extra };
  const p = (f: string) => (form === "a" ? `body.params.${f}` : `body.${f}`);

  it("runs with its options, hops annotated with their networks, and the AS path", async () => {
    const t = await db.freshApp(form, {});
    const node = serveNode(t.bus, { id: "n1" }, (job) => {
      const r = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
      r.outcome.detail.hops = path.map(mtrHop);
      return r;
    });
    await settle();
    const run = await runTask(t, form, "mtr", body("example.com", { mode: "tcp", port: 443, rounds: 20 }));
    expect(run.created.status, JSON.stringify(run.created.body)).toBe(form === "a" ? 202 : 200);
    expect(node.jobs[0]!.spec).toEqual({
      type: "mtr",
      params: {
        host: "example.com",
        mode: "tcp",
        port: 443,
        rounds: 20,
        max_hops: 30,
        interval_ms: 1000,
        timeout_ms: 1000,
      },
    });
    const [r] = run.results;
    expect(r).toMatchObject({ success: true, mode: "tcp", rounds: 20, reached: true });
    expect(r.hops[0]).toMatchObject({
      ip: "10.0.0.1",
      reserved: true,
      range: "private",
      asn: null,
      network: null,
    });
    expect(r.hops[1]).toMatchObject({ ip: "8.8.8.8", reserved: false, asn: 15169, sent: 10, loss_pct: 10 });
    expect(r.hops[1].network).toMatch(/google/i);
    expect(r.hops[1].country).toMatch(/^[A-Z]{2}$/);
    expect(r.hops[3]).toMatchObject({ ip: "1.1.1.1", asn: 13335 });
    // Consecutive hops in one network count once.
    expect(r.as_path).toEqual([15169, 13335]);
  });

  it("traceroute hops carry their networks too", async () => {
    const t = await db.freshApp(form, {});
    serveNode(t.bus, { id: "n1" }, (job) => {
      const r = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
      r.outcome.detail.hops = [
        { hop: 1, ip: "192.168.1.1", hostname: null, rtts: [1] },
        { hop: 2, ip: null, hostname: null, rtts: [null] },
        { hop: 3, ip: "8.8.8.8", hostname: null, rtts: [2] },
      ];
      return r;
    });
    await settle();
    const run = await runTask(
      t,
      form,
      "traceroute",
      form === "a" ? { target: "8.8.8.8" } : { host: "8.8.8.8" },
    );
    const [r] = run.results;
    expect(r.hops[0]).toMatchObject({ reserved: true, range: "private", asn: null });
    expect(r.hops[1]).toEqual({ hop: 2, ip: null, hostname: null, rtts: [null] });
    expect(r.hops[2]).toMatchObject({ asn: 15169, reserved: false });
    expect(r.as_path).toEqual([15169]);
  });

  it("refuses bad options with 400 on their paths", async () => {
    const t = await db.freshApp(form, {});
    serveNode(t.bus, { id: "n1" });
    await settle();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ port: 80 }, p("port"), "only with mode udp or tcp"],
      [{ mode: "sctp" }, p("mode"), ""],
      [{ rounds: 101 }, p("rounds"), ""],
      [{ rounds: 0 }, p("rounds"), ""],
      [{ interval_ms: 50 }, p("interval_ms"), ""],
      [{ max_hops: 65 }, p("max_hops"), ""],
    ];
    for (const [extra, at, msg] of cases) {
      const res = await t.call("POST", "/v1/probe/mtr", { body: body("example.com", extra) });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details[0].path).toBe(at);
      expect(res.body.error.details[0].message).toContain(msg);
    }
  });
});
