import { randomBytes } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type { Delivery, OutboxChannel } from "./senders/index.js";

/** A claimed message, ready to hand to its channel. */
export interface QueuedDelivery {
  id: string;
  channel: string;
  destination: string;
  payload: unknown;
  attempts: number;
}

/** Retries back off 30 s, 1 min, 2 min … up to this many attempts; then the row stays for inspection. */
export const MAX_DELIVERY_ATTEMPTS = 8;
/** A claimed row is leased this long: a controller that dies mid-send leaves it for another to retry. */
const LEASE_MS = 5 * 60_000;

/** Queues a message; call inside the transaction that makes it necessary, so neither exists alone. */
export async function enqueueDelivery<C extends OutboxChannel>(
  db: Kysely<Database> | Transaction<Database>,
  delivery: Delivery<C>,
): Promise<string> {
  const id = `dlv_${Date.now().toString(36).padStart(9, "0")}${randomBytes(8).toString("hex")}`;
  await db
    .insertInto("delivery_outbox")
    .values({
      id,
      channel: delivery.channel,
      destination: delivery.destination,
      payload: jsonb(delivery.payload),
      last_error: null,
    })
    .execute();
  return id;
}

/** Claims up to `limit` due messages (SKIP LOCKED: several controllers never take the same one). */
export async function claimDue(db: Kysely<Database>, limit: number): Promise<QueuedDelivery[]> {
  const lease = new Date(Date.now() + LEASE_MS);
  const { rows } = await sql<{
    id: string;
    channel: string;
    destination: string;
    payload: unknown;
    attempts: number;
  }>`
    update delivery_outbox set next_attempt_at = ${lease}, attempts = attempts + 1
    where id in (
      select id from delivery_outbox
      where sent_at is null and next_attempt_at <= now() and attempts < ${MAX_DELIVERY_ATTEMPTS}
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    returning id, channel, destination, payload, attempts`.execute(db);
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

export async function markSent(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .updateTable("delivery_outbox")
    .set({ sent_at: new Date(), last_error: null })
    .where("id", "=", id)
    .execute();
}

export async function markFailed(
  db: Kysely<Database>,
  id: string,
  attempts: number,
  error: string,
): Promise<void> {
  const backoffMs = Math.min(30_000 * 2 ** (attempts - 1), 3600_000);
  await db
    .updateTable("delivery_outbox")
    .set({ last_error: error.slice(0, 1000), next_attempt_at: new Date(Date.now() + backoffMs) })
    .where("id", "=", id)
    .execute();
}
