import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type {
  AlertChannelsTable,
  AlertDeliveriesTable,
  AlertEventsTable,
  AlertEventType,
  AlertPoliciesTable,
} from "../../db/tables/alerts.js";

/** The statements of the alerts API (channels, policies, events as their owners see them). */

export type Executor = Kysely<Database> | Transaction<Database>;
export type ChannelRow = Selectable<AlertChannelsTable>;
export type PolicyRow = Selectable<AlertPoliciesTable>;
export type EventRow = Selectable<AlertEventsTable>;
export type DeliveryRow = Selectable<AlertDeliveriesTable>;

export interface Page {
  limit: number;
  offset: number;
}

// postgres.js returns bigint counts as strings, PGlite as numbers.
const count = (row: { n: string | number | bigint }) => Number(row.n);

// ---- channels ----

export async function countChannels(db: Executor, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom("alert_channels")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("owner_id", "=", ownerId)
    .executeTakeFirstOrThrow();
  return count(row);
}

export interface NewChannelRow {
  id: string;
  ownerId: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  secrets: string | null;
  createdAt: Date;
}

export async function insertChannel(db: Executor, c: NewChannelRow): Promise<ChannelRow> {
  return db
    .insertInto("alert_channels")
    .values({
      id: c.id,
      owner_id: c.ownerId,
      name: c.name,
      type: c.type,
      config: jsonb(c.config),
      secrets: c.secrets,
      created_at: c.createdAt,
      updated_at: c.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** How many deliveries wait (pending) on each of `channelIds`; a channel with none is absent. */
export async function queuedByChannel(db: Executor, channelIds: string[]): Promise<Map<string, number>> {
  if (channelIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("alert_deliveries")
    .select((eb) => ["channel_id", eb.fn.countAll<string>().as("n")])
    .where("status", "=", "pending")
    .where("channel_id", "in", channelIds)
    .groupBy("channel_id")
    .execute();
  return new Map(rows.map((r) => [r.channel_id, Number(r.n)]));
}

/** A page of the owner's channels, newest first (ties by id, so pages never overlap). */
export async function listChannels(db: Executor, ownerId: string, page: Page): Promise<ChannelRow[]> {
  return db
    .selectFrom("alert_channels")
    .selectAll()
    .where("owner_id", "=", ownerId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export interface ChannelChanges {
  name?: string;
  config?: Record<string, unknown>;
  /** null: the channel holds no secret any more. */
  secrets?: string | null;
}

export async function updateChannel(
  db: Executor,
  ownerId: string,
  id: string,
  changes: ChannelChanges,
  now: Date,
): Promise<ChannelRow | undefined> {
  return db
    .updateTable("alert_channels")
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.config !== undefined ? { config: jsonb(changes.config) } : {}),
      ...(changes.secrets !== undefined ? { secrets: changes.secrets } : {}),
      updated_at: now,
    })
    .where("id", "=", id)
    .where("owner_id", "=", ownerId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Deletes the owner's channel and takes its id out of the owner's policies, in one transaction; false when
 * there is no such channel. Its pending deliveries stay: the deliverer fails them ("no longer exists").
 */
export async function deleteChannel(db: Kysely<Database>, ownerId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const gone = await tx
      .deleteFrom("alert_channels")
      .where("id", "=", id)
      .where("owner_id", "=", ownerId)
      .returning("id")
      .executeTakeFirst();
    if (!gone) return false;
    await tx
      .updateTable("alert_policies")
      .set({ channel_ids: sql<string[]>`array_remove(channel_ids, ${id})`, updated_at: new Date() })
      .where("owner_id", "=", ownerId)
      .where(sql<boolean>`${id} = any(channel_ids)`)
      .execute();
    return true;
  });
}

/**
 * Which of `ids` are channels of the owner, those rows share-locked for the transaction: a concurrent
 * delete of one waits until the policy naming it is written, then takes the id out of it.
 */
export async function ownedChannelIds(
  tx: Transaction<Database>,
  ownerId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx
    .selectFrom("alert_channels")
    .select("id")
    .where("owner_id", "=", ownerId)
    .where("id", "in", ids)
    .forShare()
    .execute();
  return new Set(rows.map((r) => r.id));
}

// ---- policies ----

/** Whether the monitor is the owner's; share-locked, so it cannot go before the policy is written. */
export async function ownsMonitor(tx: Transaction<Database>, ownerId: string, id: string): Promise<boolean> {
  const row = await tx
    .selectFrom("monitors")
    .select("id")
    .where("id", "=", id)
    .where("owner_id", "=", ownerId)
    .forShare()
    .executeTakeFirst();
  return row !== undefined;
}

export interface NewPolicyRow {
  id: string;
  ownerId: string;
  name: string;
  /** Null: every monitor of the owner. */
  monitorId: string | null;
  channelIds: string[];
  onDown: boolean;
  onUp: boolean;
  reminderMinutes: number | null;
  escalation?: { after_minutes: number; channel_ids: string[] }[];
  createdAt: Date;
}

/** A text[] value both drivers send alike (an empty list included): a JSON list, unpacked on the server. */
function textArrayOf(ids: readonly string[]) {
  return sql<string[]>`array(select jsonb_array_elements_text(${jsonb(ids)}))`;
}

export async function insertPolicy(db: Executor, p: NewPolicyRow): Promise<PolicyRow> {
  return db
    .insertInto("alert_policies")
    .values({
      id: p.id,
      owner_id: p.ownerId,
      name: p.name,
      monitor_id: p.monitorId,
      channel_ids: textArrayOf(p.channelIds),
      on_down: p.onDown,
      on_up: p.onUp,
      reminder_minutes: p.reminderMinutes,
      escalation: jsonb(p.escalation ?? []),
      created_at: p.createdAt,
      updated_at: p.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface PolicyFilter {
  monitorId?: string | undefined;
}

export async function countPolicies(db: Executor, ownerId: string, filter: PolicyFilter): Promise<number> {
  let q = db
    .selectFrom("alert_policies")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("owner_id", "=", ownerId);
  if (filter.monitorId !== undefined) q = q.where("monitor_id", "=", filter.monitorId);
  return count(await q.executeTakeFirstOrThrow());
}

/** A page of the owner's policies, newest first (ties by id). */
export async function listPolicies(
  db: Executor,
  ownerId: string,
  filter: PolicyFilter,
  page: Page,
): Promise<PolicyRow[]> {
  let q = db.selectFrom("alert_policies").selectAll().where("owner_id", "=", ownerId);
  if (filter.monitorId !== undefined) q = q.where("monitor_id", "=", filter.monitorId);
  return q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export interface PolicyChanges {
  name?: string;
  channelIds?: string[];
  onDown?: boolean;
  onUp?: boolean;
  reminderMinutes?: number | null;
  escalation?: { after_minutes: number; channel_ids: string[] }[];
}

export async function updatePolicy(
  db: Executor,
  ownerId: string,
  id: string,
  changes: PolicyChanges,
  now: Date,
): Promise<PolicyRow | undefined> {
  return db
    .updateTable("alert_policies")
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.channelIds !== undefined ? { channel_ids: textArrayOf(changes.channelIds) } : {}),
      ...(changes.onDown !== undefined ? { on_down: changes.onDown } : {}),
      ...(changes.onUp !== undefined ? { on_up: changes.onUp } : {}),
      ...(changes.reminderMinutes !== undefined ? { reminder_minutes: changes.reminderMinutes } : {}),
      ...(changes.escalation !== undefined ? { escalation: jsonb(changes.escalation) } : {}),
      updated_at: now,
    })
    .where("id", "=", id)
    .where("owner_id", "=", ownerId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the owner's policy (its events and their deliveries go with it, by foreign key). */
export async function deletePolicy(db: Executor, ownerId: string, id: string): Promise<boolean> {
  const gone = await db
    .deleteFrom("alert_policies")
    .where("id", "=", id)
    .where("owner_id", "=", ownerId)
    .returning("id")
    .executeTakeFirst();
  return gone !== undefined;
}

// ---- events ----

export interface EventFilter {
  monitorId?: string | undefined;
  type?: AlertEventType | undefined;
}

function eventsOf(db: Executor, ownerId: string, filter: EventFilter) {
  let q = db.selectFrom("alert_events").where("owner_id", "=", ownerId);
  if (filter.monitorId !== undefined) q = q.where("monitor_id", "=", filter.monitorId);
  if (filter.type !== undefined) q = q.where("type", "=", filter.type);
  return q;
}

export async function countEvents(db: Executor, ownerId: string, filter: EventFilter): Promise<number> {
  const row = await eventsOf(db, ownerId, filter)
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return count(row);
}

/** A page of the owner's events, newest first (ties by id). */
export async function listEvents(
  db: Executor,
  ownerId: string,
  filter: EventFilter,
  page: Page,
): Promise<EventRow[]> {
  return eventsOf(db, ownerId, filter)
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** An event's deliveries, one per channel, by channel id. */
export async function listDeliveries(db: Executor, eventId: string): Promise<DeliveryRow[]> {
  return db
    .selectFrom("alert_deliveries")
    .selectAll()
    .where("event_id", "=", eventId)
    .orderBy("channel_id")
    .execute();
}
