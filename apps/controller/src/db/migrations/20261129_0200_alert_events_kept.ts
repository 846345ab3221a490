import { type Kysely, sql } from "kysely";

/**
 * Alert events outlive their policy and monitor (issue #28 item 10): the service keeps the history of alert
 * events, but deleting a monitor deleted its policies, and with them (`on delete cascade`) every event and
 * delivery they had made. `policy_id` stays as the id of the policy that made the event, as `monitor_id`
 * already did, without a foreign key; the events still go with their account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table alert_events drop constraint alert_events_policy_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from alert_events e where not exists (select 1 from alert_policies p where p.id = e.policy_id)`.execute(
    db,
  );
  await sql`
    alter table alert_events add constraint alert_events_policy_id_fkey
    foreign key (policy_id) references alert_policies (id) on delete cascade`.execute(db);
}
