import { type InsertObject, type Kysely, type RawBuilder, sql } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type { AlertEventType } from "../../db/tables/alerts.js";
import { newId } from "../../lib/ids.js";

export interface EventsReport {
  /** State changes turned into events (or found to need none). */
  changes: number;
  events: number;
  deliveries: number;
}

/**
 * Maintenance windows (issue #29 item 4, the monitors module's): for each item (a state change or a due
 * reminder, by `key`), the window covering its monitor at `at`; items no window covers are absent.
 */
export type MuteCheck = (
  items: { key: string; monitorId: string; ownerId: string; at: Date }[],
  /** The caller's transaction (PGlite has one connection: a read beside it would wait forever). */
  db: Kysely<Database>,
) => Promise<Map<string, string>>;

interface Change {
  id: string;
  monitor_id: string;
  slot: Date | string;
  from_state: string;
  to_state: string;
  /** A change to `unknown` for want of runs: why (monitors/stale.ts); null for a run's verdict. */
  reason: string | null;
  /** The monitor's change before this one was such a stale one (an `unknown → up` that ends a spell). */
  after_stale: boolean;
  /** A down change's evidence (monitors/evidence.ts): the failing nodes' traceroute and DNS, or pending. */
  evidence: unknown;
}

/**
 * Which event a state change makes under a policy: `down` on any change to down (unknown → down
 * included), `up` on down → up; the first verdict of a new monitor (unknown → up) alerts nobody.
 * Honest state (issue #29): a change to `unknown` with a reason (no run for two intervals) is a
 * `monitor_stale` event for policies that alert on down, and the run that ends the spell (unknown → up
 * after it) an `up` for those that alert on up.
 */
export function eventTypeOf(
  change: { from_state: string; to_state: string; reason?: string | null; after_stale?: boolean },
  policy: { on_down: boolean; on_up: boolean },
): AlertEventType | null {
  if (change.to_state === "down") return policy.on_down ? "down" : null;
  if (change.to_state === "unknown" && change.reason) return policy.on_down ? "monitor_stale" : null;
  if (change.to_state === "up" && (change.from_state === "down" || change.after_stale === true))
    return policy.on_up ? "up" : null;
  return null;
}

/**
 * Turns monitor state changes into alert events, exactly once: up to `batch` changes not yet alerted are
 * claimed with FOR UPDATE SKIP LOCKED (several notifiers never take the same one); in the same transaction
 * each matching policy gets its event (unique per policy and change), each of the policy's channels its
 * pending delivery (unique per event and channel), and the changes are marked alerted. A notifier that dies
 * before commit leaves the changes for another; one that commits has made every event and delivery.
 */
export async function makeEvents(db: Kysely<Database>, batch = 500, mute?: MuteCheck): Promise<EventsReport> {
  return db.transaction().execute(async (tx) => {
    const { rows: changes } = await sql<Change>`
      select c.id, c.monitor_id, c.slot, c.from_state, c.to_state, c.reason, c.evidence,
        c.from_state = 'unknown' and coalesce((
          select p.reason is not null from monitor_state_changes p
          where p.monitor_id = c.monitor_id and p.slot < c.slot order by p.slot desc limit 1
        ), false) as after_stale
      from monitor_state_changes c
      where c.alerted_at is null
        -- A down change whose failing nodes are still collecting evidence waits for it, at most 20 s.
        and not (c.evidence is not null and jsonb_typeof(c.evidence) = 'object'
          and c.created_at > now() - interval '20 seconds')
      order by c.created_at, c.slot, c.id limit ${batch}
      for update of c skip locked`.execute(tx);
    if (changes.length === 0) return { changes: 0, events: 0, deliveries: 0 };
    const monitorIds = [...new Set(changes.map((c) => c.monitor_id))];
    // A policy of one of these monitors, or of all its owner's monitors (monitor_id null).
    const owners = new Map(
      (
        await tx.selectFrom("monitors").select(["id", "owner_id"]).where("id", "in", monitorIds).execute()
      ).map((m) => [m.id, m.owner_id]),
    );
    const ownerIds = [...new Set(owners.values())];
    // Changes inside a maintenance window make no event: marked alerted, with the window that muted them.
    const muted = mute
      ? await mute(
          changes.map((c) => ({
            key: c.id,
            monitorId: c.monitor_id,
            ownerId: owners.get(c.monitor_id) ?? "",
            at: new Date(c.slot),
          })),
          tx,
        )
      : new Map<string, string>();
    const policies = await tx
      .selectFrom("alert_policies")
      .select(["id", "owner_id", "monitor_id", "channel_ids", "on_down", "on_up"])
      .where((eb) =>
        ownerIds.length === 0
          ? eb("monitor_id", "in", monitorIds)
          : eb.or([
              eb("monitor_id", "in", monitorIds),
              eb.and([eb("monitor_id", "is", null), eb("owner_id", "in", ownerIds)]),
            ]),
      )
      .execute();
    const covers = (p: (typeof policies)[number], monitorId: string) =>
      p.monitor_id === null ? p.owner_id === owners.get(monitorId) : p.monitor_id === monitorId;
    const events: {
      id: string;
      owner_id: string;
      policy_id: string;
      monitor_id: string;
      type: AlertEventType;
      state_change_id: string;
      detail: ReturnType<typeof jsonb<string>>;
      channels: string[];
    }[] = [];
    for (const c of changes) {
      if (muted.has(c.id)) continue;
      const failing = c.to_state === "down" ? await failingNodes(tx, c) : [];
      for (const p of policies.filter((p) => covers(p, c.monitor_id))) {
        const type = eventTypeOf(c, p);
        if (!type) continue;
        events.push({
          id: newId("evt"),
          owner_id: p.owner_id,
          policy_id: p.id,
          monitor_id: c.monitor_id,
          type,
          state_change_id: c.id,
          detail: jsonb<string>({
            from: c.from_state,
            to: c.to_state,
            slot: new Date(c.slot).toISOString(),
            nodes: type === "down" ? failing : [],
            ...(c.reason ? { reason: c.reason } : {}),
            ...(type === "down" && Array.isArray(c.evidence) ? { evidence: c.evidence } : {}),
          }),
          channels: p.channel_ids,
        });
      }
    }
    let made: { id: string }[] = [];
    if (events.length > 0) {
      made = await tx
        .insertInto("alert_events")
        .values(events.map(({ channels: _, ...e }) => e))
        .onConflict((oc) => oc.columns(["policy_id", "state_change_id"]).doNothing())
        .returning("id")
        .execute();
    }
    const madeIds = new Set(made.map((m) => m.id));
    const deliveries = events
      .filter((e) => madeIds.has(e.id))
      .flatMap((e) =>
        e.channels.map((channel) => ({ id: newId("dlv"), event_id: e.id, channel_id: channel })),
      );
    if (deliveries.length > 0) {
      await tx
        .insertInto("alert_deliveries")
        // Due in the changes' order, a microsecond apart: a channel that was away sends them oldest first.
        .values(
          deliveries.map((d, i) => ({
            ...d,
            log: jsonb<string>([]),
            next_attempt_at: sql<Date>`now() + ${i} * interval '1 microsecond'`,
          })),
        )
        .onConflict((oc) => oc.columns(["event_id", "channel_id"]).doNothing())
        .execute();
    }
    await tx
      .updateTable("monitor_state_changes")
      .set({ alerted_at: new Date() })
      .where(
        "id",
        "in",
        changes.map((c) => c.id),
      )
      .execute();
    for (const [changeId, windowId] of muted) {
      await tx
        .updateTable("monitor_state_changes")
        .set({ maintenance_id: windowId })
        .where("id", "=", changeId)
        .execute();
    }
    return { changes: changes.length, events: made.length, deliveries: deliveries.length };
  });
}

/**
 * Inserts `event` unless its policy already has one under its `state_change_id` (another notifier made it
 * first), then a delivery per distinct channel. The deliveries made, or undefined when the event existed.
 */
export async function insertEventOnce(
  tx: Kysely<Database>,
  event: InsertObject<Database, "alert_events"> & { id: string },
  channelIds: readonly string[],
): Promise<number | undefined> {
  const made = await tx
    .insertInto("alert_events")
    .values(event)
    .onConflict((oc) => oc.columns(["policy_id", "state_change_id"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!made) return undefined;
  const channels = [...new Set(channelIds)];
  if (channels.length === 0) return 0;
  await tx
    .insertInto("alert_deliveries")
    .values(
      channels.map((c) => ({ id: newId("dlv"), event_id: event.id, channel_id: c, log: jsonb<string>([]) })),
    )
    .onConflict((oc) => oc.columns(["event_id", "channel_id"]).doNothing())
    .execute();
  return channels.length;
}

/** The nodes whose run failed at the change's slot, with their error codes (for the message). */
export async function failingNodes(
  db: Kysely<Database>,
  c: Pick<Change, "monitor_id" | "slot">,
): Promise<{ node_id: string; error_code: string | null }[]> {
  const { rows } = await sql<{ node_id: string; error_code: string | null }>`
    select r.node_id, r.error_code from monitor_runs r join monitors m on m.seq = r.monitor_seq
    where m.id = ${c.monitor_id} and r.slot = ${new Date(c.slot)} and not r.success
    order by r.node_id`.execute(db);
  return rows;
}

/** `alert_policies p` covers `monitors m`: its own monitor, or any of its owner's when `monitor_id` is null. */
export const policyCovers = sql`(m.id = p.monitor_id or (p.monitor_id is null and m.owner_id = p.owner_id))`;

/**
 * Over `alert_policies p join monitors m`: the policy has a reminder due at `now` (its monitor is active and
 * down, and `reminder_minutes` have passed since it went down). `makeReminders` makes them; the notifier's
 * gate asks whether there are any.
 */
function reminderDue(now: Date) {
  return sql`p.reminder_minutes is not null and p.on_down and m.state = 'down' and m.status = 'active'
    and m.state_changed_at is not null
    and m.state_changed_at + make_interval(mins => p.reminder_minutes) <= ${now}
    and not exists (select 1 from alert_events a where a.policy_id = p.id and a.monitor_id = m.id
      and a.type = 'down' and a.acknowledged_at is not null and a.created_at >= m.state_changed_at)`;
}

/**
 * Whether a round of the notifier has anything to do: a state change not yet turned into events, a reminder
 * due (as `makeReminders` finds them) or a delivery due on a channel that may be tried now (not failing, or
 * its `retry_at` come), or any of `also` (the escalation and after-maintenance gates, so the notifier's poll
 * is one statement). Two of its parts on partial indexes: an idle notifier costs one cheap query per poll,
 * not a round of transactions.
 */
export async function alertWorkWaiting(
  db: Kysely<Database>,
  now = new Date(),
  also: readonly RawBuilder<boolean>[] = [],
): Promise<boolean> {
  return (await alertWork(db, now, also)).now;
}

/**
 * `alertWorkWaiting` (`now`) and, in the same statement, whether anything may fall due within seconds
 * (`soon`): a pending delivery (a retry, a failing channel's queue) or any of `alsoSoon` (an escalation
 * still open). With neither, the notifier is quiet: only a new state change (which wakes it) or a reminder,
 * escalation step or window's end counted in minutes can give it work.
 */
export async function alertWork(
  db: Kysely<Database>,
  now = new Date(),
  also: readonly RawBuilder<boolean>[] = [],
  alsoSoon: readonly RawBuilder<boolean>[] = [],
): Promise<{ now: boolean; soon: boolean }> {
  const { rows } = await sql<{ waiting: boolean; soon: boolean }>`
    select (
      exists (select 1 from monitor_state_changes where alerted_at is null)
      or exists (
        select 1 from alert_deliveries d where d.status = 'pending' and d.next_attempt_at <= ${now}
        and not exists (select 1 from alert_channels c where c.id = d.channel_id and c.retry_at > ${now}))
      or exists (
        select 1 from alert_policies p join monitors m on ${policyCovers} where ${reminderDue(now)})
      ${sql.join(
        also.map((due) => sql`or ${due}`),
        sql` `,
      )}
    ) as waiting,
    (
      exists (select 1 from alert_deliveries where status = 'pending')
      ${sql.join(
        alsoSoon.map((open) => sql`or ${open}`),
        sql` `,
      )}
    ) as soon`.execute(db);
  return { now: rows[0]?.waiting === true, soon: rows[0]?.soon === true };
}

/**
 * Reminders while a monitor stays down: a policy with `reminder_minutes` gets a `reminder` event every that
 * many minutes after the change to down, for as long as the monitor is down (and the policy alerts on down).
 * Each reminder's key is the down change's time and its number, unique per policy: however many notifiers
 * look, each reminder is made once; one missed while no notifier ran is made late, once (never a burst).
 */
export async function makeReminders(
  db: Kysely<Database>,
  now = new Date(),
  mute?: MuteCheck,
): Promise<EventsReport> {
  const { rows } = await sql<{
    policy_id: string;
    owner_id: string;
    monitor_id: string;
    channel_ids: string[];
    all_monitors: boolean;
    reminder_minutes: number;
    state_changed_at: Date | string;
  }>`
    select p.id as policy_id, p.owner_id, m.id as monitor_id, p.monitor_id is null as all_monitors, p.channel_ids,
      p.reminder_minutes, m.state_changed_at
    from alert_policies p join monitors m on ${policyCovers}
    where ${reminderDue(now)}`.execute(db);
  let events = 0;
  let deliveries = 0;
  // No reminder while a maintenance window covers the monitor.
  const muted = mute
    ? await mute(
        rows.map((r, i) => ({ key: String(i), monitorId: r.monitor_id, ownerId: r.owner_id, at: now })),
        db,
      )
    : new Map<string, string>();
  for (const [i, r] of rows.entries()) {
    if (muted.has(String(i))) continue;
    const since = new Date(r.state_changed_at);
    const n = Math.floor((now.getTime() - since.getTime()) / (r.reminder_minutes * 60_000));
    if (n < 1) continue;
    const id = newId("evt");
    await db.transaction().execute(async (tx) => {
      const made = await insertEventOnce(
        tx,
        {
          id,
          owner_id: r.owner_id,
          policy_id: r.policy_id,
          monitor_id: r.monitor_id,
          type: "reminder",
          // A policy of all monitors has reminders of several: each monitor's are its own.
          state_change_id: `reminder:${r.all_monitors ? `${r.monitor_id}:` : ""}${since.toISOString()}:${n}`,
          detail: jsonb<string>({
            to: "down",
            since: since.toISOString(),
            reminder: n,
            slot: now.toISOString(),
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
