import { describe, expect, it } from "vitest";
import { jsonb } from "../../db/json.js";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { alertText, evidenceLine } from "./channels/text.js";
import { makeEvents } from "./events.js";

/** The alert path with the evidence monitors/evidence.ts keeps on a down change (issue #29 item 3). */
const found = {
  node_id: "fra-1",
  host: "shop.example",
  mtr: {
    success: true,
    error: null,
    detail: {
      reached: false,
      rounds: 5,
      hops: [
        { hop: 1, ip: "198.51.100.1", loss_pct: 40 },
        { hop: 2, ip: null, loss_pct: 100 },
      ],
    },
  },
  traceroute: null,
  dns: { success: true, error: null, detail: { rcode: "NOERROR", answers: [{ value: "203.0.113.7" }] } },
};
/** A node without mtr (an older agent) traced instead; its DNS query could not run. */
const traced = {
  node_id: "nyc-1",
  host: "shop.example",
  mtr: null,
  traceroute: {
    success: true,
    error: null,
    detail: { reached: true, hops: [{ hop: 1, ip: "203.0.113.7" }] },
  },
  dns: { success: false, error: { code: "timeout", message: "no answer" }, detail: null },
};

describe("evidence in messages", () => {
  it("reads as one line per node, naming the probe that ran", () => {
    expect(evidenceLine(found)).toBe(
      "fra-1: mtr shop.example, 2 hops, last 198.51.100.1 40% loss (not reached); DNS 203.0.113.7",
    );
    expect(evidenceLine(traced)).toBe("nyc-1: traceroute shop.example, 1 hop, last 203.0.113.7; DNS timeout");
    // An event stored before mtr existed has no `mtr` key at all.
    const { mtr: _, ...older } = traced;
    expect(evidenceLine(older)).toBe(evidenceLine(traced));
    expect(
      evidenceLine({
        ...found,
        mtr: { success: false, error: { code: "target_not_allowed" }, detail: null },
      }),
    ).toBe("fra-1: mtr shop.example: target_not_allowed; DNS 203.0.113.7");
  });
});

describe.each(dbKinds)("evidence on alert on %s", (kind) => {
  const db = useTestDb(kind);

  it("a down change waits while its evidence is collected, then its event and message carry it", async () => {
    const t = db.app("a");
    const k = t.db.kysely;
    const u = await newUser(t, "evd-alerts");
    const mon = `mon_eva_${kind}`;
    await insertMonitor(k, mon, u.userId, { name: "shop", state: "down" });
    await k
      .insertInto("alert_channels")
      .values({
        id: `ch_eva_${kind}`,
        owner_id: u.userId,
        name: "h",
        type: "webhook",
        config: "{}",
        secrets: null,
      })
      .execute();
    await k
      .insertInto("alert_policies")
      .values({
        id: `pol_eva_${kind}`,
        owner_id: u.userId,
        name: "p",
        monitor_id: mon,
        channel_ids: [`ch_eva_${kind}`],
      })
      .execute();
    await k
      .insertInto("monitor_state_changes")
      .values({
        id: `msc_eva_${kind}`,
        monitor_id: mon,
        slot: new Date(),
        from_state: "up",
        to_state: "down",
        evidence: jsonb({ pending: true }),
      })
      .execute();
    // Held back while the failing nodes are still at it (at most 20 s).
    expect((await makeEvents(k)).changes).toBe(0);

    await k
      .updateTable("monitor_state_changes")
      .set({ evidence: jsonb([found, traced]) })
      .where("id", "=", `msc_eva_${kind}`)
      .execute();
    expect(await makeEvents(k)).toMatchObject({ changes: 1, events: 1, deliveries: 1 });
    const event = await k
      .selectFrom("alert_events")
      .select(["type", "detail"])
      .where("policy_id", "=", `pol_eva_${kind}`)
      .executeTakeFirstOrThrow();
    expect(event.type).toBe("down");
    const evidence = (event.detail as { evidence: unknown[] }).evidence;
    expect(evidence).toEqual([found, traced]);

    const text = alertText({
      kind: "down",
      event_id: "evt_x",
      monitor: { id: mon, name: "shop", type: "http", target: "http://shop.example/" },
      occurred_at: new Date().toISOString(),
      locale: "en",
      evidence: evidence as never,
      event_url: "https://vantage.example/v1/alert-events/evt_x",
    });
    expect(text.lines).toContain(`Evidence: ${evidenceLine(found)}`);
    expect(text.lines).toContain(`Evidence: ${evidenceLine(traced)}`);
    expect(text.lines).toContain("Details and full evidence: https://vantage.example/v1/alert-events/evt_x");
  });
});
