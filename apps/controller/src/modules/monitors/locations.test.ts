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
import { pickLocations } from "./locations.js";
import { startScheduler } from "./scheduler.js";
import { runVerdict } from "./state.js";
import { RunWriter } from "./writer.js";

const node = (id: string, country: string, region: string, provider: string, runningJobs = 0) => ({
  id,
  country,
  region,
  provider,
  capabilities: [] as string[],
  runningJobs,
});

describe("locations and quorum", () => {
  it("picks spread over countries first, within the filter, without the excluded", () => {
    const online = [
      node("de-1", "DE", "eu-central", "hetzner"),
      node("de-2", "DE", "eu-central", "aws"),
      node("us-1", "US", "us-east", "aws", 3),
      node("us-2", "US", "us-west", "do"),
      node("jp-1", "JP", "ap-northeast", "aws"),
    ];
    expect(pickLocations(online, { count: 3, type: "http" })).toEqual(["de-1", "jp-1", "us-2"]);
    expect(pickLocations(online, { count: 3, type: "http", filter: { providers: ["aws"] } })).toEqual([
      "de-2",
      "jp-1",
      "us-1",
    ]);
    expect(
      pickLocations(online, { count: 2, type: "http", filter: { countries: ["US"] }, exclude: ["us-2"] }),
    ).toEqual(["us-1"]);
    expect(pickLocations(online, { count: 1, type: "http", filter: { countries: ["FR"] } })).toEqual([]);
    // Location selectors as probes take them: any of them; one naming nothing known matches no node.
    expect(pickLocations(online, { count: 3, type: "http", filter: { selectors: ["europe"] } })).toEqual([
      "de-1",
      "de-2",
    ]);
    expect(
      pickLocations(online, { count: 3, type: "http", filter: { selectors: ["united states+aws", "jp"] } }),
    ).toEqual(["jp-1", "us-1"]);
    expect(pickLocations(online, { count: 1, type: "http", filter: { selectors: ["atlantis"] } })).toEqual(
      [],
    );
    // A node that lists probe types runs only those; one that lists none (only tags) runs all.
    const typed = [
      { ...node("a", "DE", "eu", "x"), capabilities: ["ipv4", "ping"] },
      { ...node("b", "US", "us", "x"), capabilities: ["ipv4", "icmp"] },
    ];
    expect(pickLocations(typed, { count: 2, type: "http" })).toEqual(["b"]);
  });

  it("k of n: fails when k or more fail; by default unless more than half pass", () => {
    expect(runVerdict([true, true, false])).toBe(true);
    expect(runVerdict([true, false, false])).toBe(false);
    expect(runVerdict([true, true, false], 1)).toBe(false);
    expect(runVerdict([true, false, false], 3)).toBe(true);
    expect(runVerdict([false, false], 3)).toBe(false); // k above the nodes that answered: all failing
    expect(runVerdict([])).toBe(false);
  });
});

describe.each(dbKinds)("runs from several locations on %s", (kind) => {
  const db = useTestDb(kind);
  const log = pino({ level: "silent" });
  const refused = (job: JobMessage) => ({
    ...(doneReply(job) as object),
    outcome: {
      success: false,
      latency_ms: null,
      error: { code: "connection_refused", message: "refused" },
      detail: null,
    },
  });

  it("one failing location of three is outvoted; a lone failure is confirmed from a second node first", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    const bad = `loc-${kind}-bad`;
    serveNode(t.bus, { id: `loc-${kind}-de`, country: "DE" });
    serveNode(t.bus, { id: `loc-${kind}-us`, country: "US", region: "us-east" });
    serveNode(t.bus, { id: bad, country: "JP", region: "ap-northeast" }, refused);
    await settle();
    const u = await newUser(t, "loc");
    const ctx = {
      db: t.db.kysely,
      log,
      form: "b" as const,
      plans: defaultPlans,
      allowPrivateTargets: true,
      now: Date.now,
    };
    const writer = new RunWriter(t.db.kysely, log, { flushMs: 5 });
    const add = (id: string, config: Record<string, unknown>) =>
      insertMonitor(t.db.kysely, id, u.userId, {
        type: "tcp",
        target: "127.0.0.1:7",
        config,
        next_run_at: new Date(Date.now() - 1000),
      });
    await add(`mon_q3_${kind}`, { node_count: 3 });
    await add(`mon_q1_${kind}`, { node_count: 3, quorum: 1 });
    await add(`mon_lone_${kind}`, { nodes: [bad] });
    await add(`mon_us_${kind}`, { node_count: 2, locations: { countries: ["US"] } });
    const s = startScheduler(ctx, t.modules.probes.service, writer, {
      tickMs: 3_600_000,
      batch: 100,
      planOf: (m) => planMonitorProbe(t.modules.probes.service, m, "monitor"),
      nodes: t.modules.nodes.service,
    });
    for (let i = 0; i < 400 && s.stats.finished < 4; i++) await new Promise((r) => setTimeout(r, 25));
    await s.stop();
    expect(s.stats.finished).toBe(4);
    const runs = await t.db.kysely
      .selectFrom("monitor_runs as r")
      .innerJoin("monitors as m", "m.seq", "r.monitor_seq")
      .select(["m.id", "m.fail_streak", "r.node_id", "r.success"])
      .where("m.owner_id", "=", u.userId)
      .orderBy("m.id")
      .orderBy("r.node_id")
      .execute();
    const of = (id: string) => runs.filter((r) => r.id === id);
    // Three locations, one failing: the run passes; with quorum 1 the same run fails.
    expect(of(`mon_q3_${kind}`).map((r) => r.success)).toEqual([false, true, true]);
    expect(of(`mon_q3_${kind}`)[0]?.fail_streak).toBe(0);
    expect(of(`mon_q1_${kind}`)[0]?.fail_streak).toBe(1);
    // Its one node failed: a second node ran it at once, passed, so the failure did not count.
    const lone = of(`mon_lone_${kind}`);
    expect(lone).toHaveLength(2);
    expect(lone.find((r) => r.node_id === bad)?.success).toBe(false);
    expect(lone[0]?.fail_streak).toBe(0);
    expect(s.stats).toMatchObject({ confirmations: 1, unconfirmed: 1 });
    // The location filter: only the US node, though two were asked for.
    expect(of(`mon_us_${kind}`).map((r) => r.node_id)).toEqual([`loc-${kind}-us`]);
  });
});
