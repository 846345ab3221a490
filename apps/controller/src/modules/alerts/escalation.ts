import { type Kysely, type RawBuilder, sql } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type { EscalationStep } from "../../db/tables/alerts.js";
import { newId } from "../../lib/ids.js";
import { insertEventOnce } from "./events.js";

/**
 * Escalation (issue #29 item 6): a down event nobody has acknowledged, of a monitor still down since it,
 * gets an `escalation` event per step of its policy once `after_minutes` have passed since the event, with
 * one delivery per channel of the step. Each step's key (`escalation:<down event>:<step>`) is unique per
 * policy, so however many notifiers look, a step is made once. `minuteMs` is a minute's length (60 000;
 * shorter in tests and drills: VANTAGE_ALERTS_ESCALATION_MINUTE_MS).
 */

/** Over `alert_events e join alert_policies p join monitors m`: an open down event with a step not yet made. */
const open = sql`e.type = 'down' and e.acknowledged_at is null and jsonb_array_length(p.escalation) > 0
  and m.state = 'down' and m.status = 'active' and (m.state_changed_at is null or m.state_changed_at <= e.created_at)
  and not exists (select 1 from alert_events x where x.policy_id = e.policy_id
    and x.state_change_id = 'escalation:' || e.id || ':' || (jsonb_array_length(p.escalation) - 1))`;

const from = sql`alert_events e join alert_policies p on p.id = e.policy_id join monitors m on m.id = e.monitor_id`;

/** Some step is due at `now`, as a boolean SQL expression (the notifier's gate; the partial index keeps it cheap). */
export function escalationDue(now: Date, minuteMs: number): RawBuilder<boolean> {
  return sql<boolean>`exists (
      select 1 from ${from} where ${open}
        and e.created_at + (p.escalation -> 0 ->> 'after_minutes')::int * ${minuteMs} * interval '1 millisecond' <= ${now}
    )`;
}

/** Some escalation is open (a step may fall due later), as a boolean SQL expression (the notifier's gate). */
export const escalationOpen: RawBuilder<boolean> = sql<boolean>`exists (select 1 from ${from} where ${open})`;

/** Whether some step is due now. */
export async function escalationWaiting(db: Kysely<Database>, now: Date, minuteMs: number): Promise<boolean> {
  const { rows } = await sql<{ waiting: boolean }>`select ${escalationDue(now, minuteMs)} as waiting`.execute(
    db,
  );
  return rows[0]?.waiting === true;
}

export async function makeEscalations(
  db: Kysely<Database>,
  now: Date,
  minuteMs: number,
): Promise<{ events: number; deliveries: number }> {
  const { rows } = await sql<{
    id: string;
    owner_id: string;
    policy_id: string;
    monitor_id: string;
    created_at: Date | string;
    detail: Record<string, unknown>;
    escalation: EscalationStep[];
  }>`
    select e.id, e.owner_id, e.policy_id, e.monitor_id, e.created_at, e.detail, p.escalation
    from ${from} where ${open} order by e.created_at limit 500`.execute(db);
  let events = 0;
  let deliveries = 0;
  for (const e of rows) {
    const since = new Date(e.created_at).getTime();
    for (const [i, step] of e.escalation.entries()) {
      if (since + step.after_minutes * minuteMs > now.getTime()) break;
      const id = newId("evt");
      await db.transaction().execute(async (tx) => {
        const made = await insertEventOnce(
          tx,
          {
            id,
            owner_id: e.owner_id,
            policy_id: e.policy_id,
            monitor_id: e.monitor_id,
            type: "escalation",
            state_change_id: `escalation:${e.id}:${i}`,
            // The down event's detail (its slot and failing nodes): the message is the outage's.
            detail: jsonb<string>({ ...e.detail, escalates: e.id, step: i + 1 }),
          },
          step.channel_ids,
        );
        if (made === undefined) return;
        events++;
        deliveries += made;
      });
    }
  }
  return { events, deliveries };
}
