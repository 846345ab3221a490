import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema.js";
import type { StatusSubscribersTable } from "../../db/tables/status-pages.js";
import { newId } from "../../lib/ids.js";

/** The SQL over a status page's subscribers and their webhook deliveries (re-exported by repo.ts). */

type Db = Kysely<Database> | Transaction<Database>;
export type SubscriberRow = Selectable<StatusSubscribersTable>;

// ---- Subscribers ----

export async function insertSubscriber(
  db: Db,
  v: {
    page_id: string;
    kind: "email" | "webhook";
    destination: string;
    token_hash: string;
    confirmed: boolean;
  },
  seal?: (id: string) => string,
): Promise<SubscriberRow | undefined> {
  const id = newId("sub");
  return db
    .insertInto("status_subscribers")
    .values({
      id,
      page_id: v.page_id,
      kind: v.kind,
      destination: v.destination,
      token_hash: v.token_hash,
      secret_sealed: seal ? seal(id) : null,
      confirmed_at: v.confirmed ? new Date() : null,
    })
    .onConflict((oc) => oc.columns(["page_id", "kind", "destination"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function countSubscribers(db: Db, pageId: string): Promise<number> {
  const r = await db
    .selectFrom("status_subscribers")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("page_id", "=", pageId)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

export async function listSubscribers(db: Db, pageId: string, pg: { page: number; limit: number }) {
  const [items, total] = await Promise.all([
    db
      .selectFrom("status_subscribers")
      .selectAll()
      .where("page_id", "=", pageId)
      .orderBy("id", "desc")
      .limit(pg.limit)
      .offset((pg.page - 1) * pg.limit)
      .execute(),
    countSubscribers(db, pageId),
  ]);
  return { items, total };
}

export async function confirmedSubscribers(db: Db, pageId: string): Promise<SubscriberRow[]> {
  return db
    .selectFrom("status_subscribers")
    .selectAll()
    .where("page_id", "=", pageId)
    .where("confirmed_at", "is not", null)
    .execute();
}

export async function subscriberByToken(db: Db, pageId: string, tokenHash: string) {
  return db
    .selectFrom("status_subscribers")
    .selectAll()
    .where("page_id", "=", pageId)
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
}

export async function confirmSubscriber(db: Db, id: string): Promise<void> {
  await db
    .updateTable("status_subscribers")
    .set({ confirmed_at: new Date() })
    .where("id", "=", id)
    .where("confirmed_at", "is", null)
    .execute();
}

export async function deleteSubscriber(db: Db, pageId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom("status_subscribers")
    .where("id", "=", id)
    .where("page_id", "=", pageId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

// ---- Webhook deliveries ----

export async function queueWebhooks(db: Db, subscriberIds: string[], body: string): Promise<void> {
  if (subscriberIds.length === 0) return;
  await db
    .insertInto("status_webhook_deliveries")
    .values(subscriberIds.map((s) => ({ id: newId("swd"), subscriber_id: s, body })))
    .execute();
}

export interface DueWebhook {
  id: string;
  body: string;
  attempts: number;
  subscriber_id: string;
  url: string;
  secret_sealed: string | null;
}

/** Claims up to `limit` due webhook notices, leasing them for 5 minutes (SKIP LOCKED). */
export async function claimWebhooks(db: Db, limit: number, maxAttempts: number): Promise<DueWebhook[]> {
  const { rows } = await sql<DueWebhook>`
    with claimed as (
      update status_webhook_deliveries set attempts = attempts + 1,
        next_attempt_at = now() + interval '5 minutes'
      where id in (
        select id from status_webhook_deliveries
        where sent_at is null and next_attempt_at <= now() and attempts < ${maxAttempts}
        order by next_attempt_at limit ${limit} for update skip locked
      )
      returning id, body, attempts, subscriber_id
    )
    select c.id, c.body, c.attempts, c.subscriber_id, s.destination as url, s.secret_sealed
    from claimed c join status_subscribers s on s.id = c.subscriber_id`.execute(db);
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

export async function webhookSent(db: Db, id: string): Promise<void> {
  await db
    .updateTable("status_webhook_deliveries")
    .set({ sent_at: new Date(), last_error: null })
    .where("id", "=", id)
    .execute();
}

export async function webhookFailed(db: Db, id: string, error: string, retryAt: Date): Promise<void> {
  await db
    .updateTable("status_webhook_deliveries")
    .set({ last_error: error.slice(0, 500), next_attempt_at: retryAt })
    .where("id", "=", id)
    .execute();
}
