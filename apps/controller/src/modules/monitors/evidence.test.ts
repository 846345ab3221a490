import type { JobMessage } from "@vantage/protocol";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { defaultPlans } from "../../lib/plans.js";
import { newUser } from "../../testing/accounts.js";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { planMonitorProbe } from "./config.js";
import { collectEvidence, type DownChange, EVIDENCE_MTR, hostOf, offersMtr } from "./evidence.js";
import { startScheduler } from "./scheduler.js";
import { RunWriter } from "./writer.js";

describe("evidence", () => {
  it("probes the target's host", () => {
    expect(hostOf("http", "https://shop.example:8443/a?b")).toBe("shop.example");
    expect(hostOf("http", "http://[2001:db8::1]/")).toBe("2001:db8::1");
    expect(hostOf("tcp", "db.example:5432")).toBe("db.example");
    expect(hostOf("ping", "192.0.2.1")).toBe("192.0.2.1");
  });

  it("mtr only where the node advertises it", () => {
    const online = [
      { id: "new", capabilities: ["ipv4", "traceroute", "mtr"] },
      { id: "old", capabilities: ["ipv4", "traceroute"] },
    ];
    expect(offersMtr(online, "new")).toBe(true);
    expect(offersMtr(online, "old")).toBe(false);
    expect(offersMtr(online, "gone")).toBe(false);
  });
});

describe.each(dbKinds)("evidence on alert on %s", (kind) => {
  const db = useTestDb(kind);
  const log = pino({ level: "silent" });

  it("a monitor going down: each failing node's mtr (traceroute on an older agent) and DNS, kept with the change", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    const withMtr = `evd-mtr-${kind}`;
    const older = `evd-old-${kind}`;
    // Neither node can reach the site (http fails) but each runs what else it is asked.
    const seen: Record<string, string[]> = { [withMtr]: [], [older]: [] };
    const mtrParams: unknown[] = [];
    const behaviour = (nodeId: string) => (job: JobMessage) => {
      seen[nodeId]?.push(job.spec.type);
      if (job.spec.type === "mtr") mtrParams.push(job.spec.params);
      return job.spec.type === "http"
        ? {
            ...(doneReply(job) as object),
            outcome: {
              success: false,
              latency_ms: null,
              error: { code: "timeout", message: "no answer" },
              detail: null,
            },
          }
        : doneReply(job);
    };
    serveNode(t.bus, { id: withMtr }, behaviour(withMtr));
    // An agent from before mtr: it advertises its probe types, mtr not among them.
    serveNode(
      t.bus,
      { id: older, capabilities: ["ipv4", "http", "dns", "tcp", "ping", "traceroute", "icmp"] },
      behaviour(older),
    );
    await settle();
    const u = await newUser(t, "evd");
    const id = `mon_evd_${kind}`;
    await insertMonitor(t.db.kysely, id, u.userId, {
      type: "http",
      target: "http://shop.example/",
      config: { failure_threshold: 1, nodes: [withMtr, older] },
      next_run_at: new Date(Date.now() - 1000),
    });
    await t.db.kysely
      .insertInto("alert_channels")
      .values({
        id: `ch_evd_${kind}`,
        owner_id: u.userId,
        name: "h",
        type: "webhook",
        config: "{}",
        secrets: null,
      })
      .execute();
    await t.db.kysely
      .insertInto("alert_policies")
      .values({
        id: `pol_evd_${kind}`,
        owner_id: u.userId,
        name: "p",
        monitor_id: id,
        channel_ids: [`ch_evd_${kind}`],
      })
      .execute();
    const ctx = {
      db: t.db.kysely,
      log,
      form: "b" as const,
      plans: defaultPlans,
      allowPrivateTargets: true,
      now: Date.now,
    };
    const collected: Promise<unknown>[] = [];
    const downs: DownChange[] = [];
    const writer = new RunWriter(t.db.kysely, log, {
      flushMs: 5,
      onDown: (changes) => {
        downs.push(...changes);
        for (const c of changes)
          collected.push(collectEvidence(ctx, t.modules.probes.service, c, t.modules.nodes.service));
      },
    });
    const s = startScheduler(ctx, t.modules.probes.service, writer, {
      tickMs: 3_600_000,
      batch: 10,
      planOf: (m) => planMonitorProbe(t.modules.probes.service, m, "monitor"),
    });
    for (let i = 0; i < 400 && downs.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await s.stop();
    expect(downs).toEqual([expect.objectContaining({ monitorId: id })]);
    expect([...(downs[0]?.failingNodes ?? [])].sort()).toEqual([older, withMtr].sort());
    await Promise.all(collected);
    expect(seen[withMtr]?.sort()).toEqual(["dns", "http", "mtr"]);
    expect(seen[older]?.sort()).toEqual(["dns", "http", "traceroute"]);
    // A few short rounds: the evidence is there well inside the notifier's 20 s hold.
    expect(mtrParams).toEqual([expect.objectContaining(EVIDENCE_MTR)]);
    // The change carries what the failing nodes found; the alerts module puts it in the down event
    // (modules/alerts/alerts-evidence.test.ts).
    const change = await t.db.kysely
      .selectFrom("monitor_state_changes")
      .select(["to_state", "evidence"])
      .where("monitor_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(change.to_state).toBe("down");
    const evidence = change.evidence as Record<string, unknown>[];
    const byNode = Object.fromEntries(evidence.map((e) => [e.node_id as string, e]));
    expect(evidence).toHaveLength(2);
    expect(byNode[withMtr]).toMatchObject({
      host: "shop.example",
      mtr: { success: true, error: null },
      traceroute: null,
      dns: { success: true, error: null },
    });
    expect(byNode[older]).toMatchObject({
      host: "shop.example",
      mtr: null,
      traceroute: { success: true, error: null },
      dns: { success: true, error: null },
    });
    const route = byNode[older]?.traceroute as { detail: { hops: unknown[] } } | undefined;
    expect(route?.detail.hops.length).toBeGreaterThan(0);
  });
});
