import { type Kysely, type RawBuilder, sql } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { type EventsReport, failingNodes, insertEventOnce, type MuteCheck, policyCovers } from "./events.js";

/**
 * The outage a maintenance window hid (issue #29 item 4): a monitor that went down inside a window (its
 * change muted, `maintenance_id` set) and is still down once no window covers it any more gets its `down`
 * event then, once per policy that alerts on down (key `after-maintenance:<change id>`, unique per policy,
 * so several notifiers make it once). As Uptime Kuma alerts on MAINTENANCE → DOWN: without it an outage
 * that outlived the work would never be told. The event is an ordinary down event: its message names the
 * slot it went down at, and it escalates, reminds and is acknowledged like any other.
 */

const PREFIX = "after-maintenance:";

/**
 * Over `alert_policies p join monitors m`, with `c` the monitor's latest state change: a muted change to
 * down, the monitor still down, and no event of the policy for it yet.
 */
const from = sql`alert_policies p join monitors m on ${policyCovers}
  join lateral (select x.id, x.slot, x.from_state, x.maintenance_id, x.evidence, x.to_state
    from monitor_state_changes x where x.monitor_id = m.id order by x.slot desc limit 1) c on true`;
const hidden = sql`p.on_down and m.state = 'down' and m.status = 'active'
  and c.to_state = 'down' and c.maintenance_id is not null
  and not exists (select 1 from alert_events a where a.policy_id = p.id and a.state_change_id = ${PREFIX} || c.id)`;

/**
 * Some monitor is down after a muted change with no event for it, as a boolean SQL expression (the notifier's
 * gate). True while its window is still open too: those rounds find it covered and make nothing.
 */
export const afterMaintenanceDue: RawBuilder<boolean> = sql<boolean>`exists (select 1 from ${from} where ${hidden})`;

/** Whether `afterMaintenanceDue` holds now. */
export async function afterMaintenanceWaiting(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ waiting: boolean }>`select ${afterMaintenanceDue} as waiting`.execute(db);
  return rows[0]?.waiting === true;
}

/** Makes the down events (and their deliveries) of monitors still down after the window that muted them. */
export async function makeAfterMaintenance(
  db: Kysely<Database>,
  now: Date,
  mute: MuteCheck,
): Promise<EventsReport> {
  const { rows } = await sql<{
    policy_id: string;
    owner_id: string;
    channel_ids: string[];
    monitor_id: string;
    change_id: string;
    slot: Date | string;
    from_state: string;
    maintenance_id: string;
    evidence: unknown;
  }>`
    select p.id as policy_id, p.owner_id, p.channel_ids, m.id as monitor_id, c.id as change_id, c.slot,
      c.from_state, c.maintenance_id, c.evidence
    from ${from} where ${hidden} order by c.slot limit 500`.execute(db);
  if (rows.length === 0) return { changes: 0, events: 0, deliveries: 0 };
  // Still inside a window (the same or another): not yet.
  const covered = await mute(
    rows.map((r, i) => ({ key: String(i), monitorId: r.monitor_id, ownerId: r.owner_id, at: now })),
    db,
  );
  let events = 0;
  let deliveries = 0;
  for (const [i, r] of rows.entries()) {
    if (covered.has(String(i))) continue;
    const id = newId("evt");
    await db.transaction().execute(async (tx) => {
      const nodes = await failingNodes(tx, r);
      const made = await insertEventOnce(
        tx,
        {
          id,
          owner_id: r.owner_id,
          policy_id: r.policy_id,
          monitor_id: r.monitor_id,
          type: "down",
          state_change_id: `${PREFIX}${r.change_id}`,
          detail: jsonb<string>({
            from: r.from_state,
            to: "down",
            slot: new Date(r.slot).toISOString(),
            nodes,
            after_maintenance: r.maintenance_id,
            ...(Array.isArray(r.evidence) ? { evidence: r.evidence } : {}),
          }),
        },
        r.channel_ids,
      );
      if (made === undefined) return;
      events++;
      deliveries += made;
    });
  }
  return { changes: 0, events, deliveries };
}
