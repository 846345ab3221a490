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
import { collectEvidence, type DownChange, hostOf } from "./evidence.js";
import { startScheduler } from "./scheduler.js";
import { RunWriter } from "./writer.js";

describe("evidence", () => {
  it("probes the target's host", () => {
    expect(hostOf("http", "https://shop.example:8443/a?b")).toBe("shop.example");
    expect(hostOf("http", "http://[2001:db8::1]/")).toBe("2001:db8::1");
    expect(hostOf("tcp", "db.example:5432")).toBe("db.example");
    expect(hostOf("ping", "192.0.2.1")).toBe("192.0.2.1");
  });
});

describe.each(dbKinds)("evidence on alert on %s", (kind) => {
  const db = useTestDb(kind);
  const log = pino({ level: "silent" });

  it("a monitor going down: each failing node's traceroute and DNS, kept with the state change", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    const nodeId = `evd-${kind}`;
    // The node cannot reach the site (http fails) but runs traceroute and DNS as asked.
    const seen: string[] = [];
    serveNode(t.bus, { id: nodeId }, (job: JobMessage) => {
      seen.push(job.spec.type);
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
    });
    await settle();
    const u = await newUser(t, "evd");
    const id = `mon_evd_${kind}`;
    await insertMonitor(t.db.kysely, id, u.userId, {
      type: "http",
      target: "http://shop.example/",
      config: { failure_threshold: 1 },
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
        for (const c of changes) collected.push(collectEvidence(ctx, t.modules.probes.service, c));
      },
    });
    const s = startScheduler(ctx, t.modules.probes.service, writer, {
      tickMs: 3_600_000,
      batch: 10,
      planOf: (m) => planMonitorProbe(t.modules.probes.service, m, "monitor"),
    });
    for (let i = 0; i < 400 && downs.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await s.stop();
    expect(downs).toEqual([expect.objectContaining({ monitorId: id, failingNodes: [nodeId] })]);
    await Promise.all(collected);
    expect(seen.sort()).toEqual(["dns", "http", "traceroute"]);
    // The change carries what the failing node found; the alerts module puts it in the down event
    // (modules/alerts/alerts-evidence.test.ts).
    const change = await t.db.kysely
      .selectFrom("monitor_state_changes")
      .select(["to_state", "evidence"])
      .where("monitor_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(change.to_state).toBe("down");
    const evidence = change.evidence as Record<string, unknown>[];
    expect(evidence).toHaveLength(1);
    expect(evidence[0]).toMatchObject({
      node_id: nodeId,
      host: "shop.example",
      traceroute: { success: true, error: null },
      dns: { success: true, error: null },
    });
    const route = evidence[0]?.traceroute as { detail: { hops: unknown[] } } | undefined;
    expect(route?.detail.hops.length).toBeGreaterThan(0);
  });
});
