import { randomBytes } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "../db/schema.js";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface QueuedMail extends MailMessage {
  id: string;
  attempts: number;
}

/** Retries back off 30 s, 1 min, 2 min … up to this many attempts; then the row stays for inspection. */
export const MAX_MAIL_ATTEMPTS = 8;
/** A claimed row is leased this long: a controller that dies mid-send leaves it for another to retry. */
const LEASE_MS = 5 * 60_000;

/** Queues a message; call inside the transaction that makes it necessary, so neither exists alone. */
export async function enqueueMail(
  db: Kysely<Database> | Transaction<Database>,
  msg: MailMessage,
): Promise<string> {
  const id = `mail_${Date.now().toString(36).padStart(9, "0")}${randomBytes(8).toString("hex")}`;
  await db
    .insertInto("mail_outbox")
    .values({ id, to_address: msg.to, subject: msg.subject, body_text: msg.text, last_error: null })
    .execute();
  return id;
}

/** Claims up to `limit` due messages (SKIP LOCKED: several controllers never take the same one). */
export async function claimDueMail(db: Kysely<Database>, limit: number): Promise<QueuedMail[]> {
  const lease = new Date(Date.now() + LEASE_MS);
  const { rows } = await sql<{
    id: string;
    to_address: string;
    subject: string;
    body_text: string;
    attempts: number;
  }>`
    update mail_outbox set next_attempt_at = ${lease}, attempts = attempts + 1
    where id in (
      select id from mail_outbox
      where sent_at is null and next_attempt_at <= now() and attempts < ${MAX_MAIL_ATTEMPTS}
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    returning id, to_address, subject, body_text, attempts`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    to: r.to_address,
    subject: r.subject,
    text: r.body_text,
    attempts: Number(r.attempts),
  }));
}

export async function markMailSent(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .updateTable("mail_outbox")
    .set({ sent_at: new Date(), last_error: null })
    .where("id", "=", id)
    .execute();
}

export async function markMailFailed(
  db: Kysely<Database>,
  id: string,
  attempts: number,
  error: string,
): Promise<void> {
  const backoffMs = Math.min(30_000 * 2 ** (attempts - 1), 3600_000);
  await db
    .updateTable("mail_outbox")
    .set({ last_error: error.slice(0, 1000), next_attempt_at: new Date(Date.now() + backoffMs) })
    .where("id", "=", id)
    .execute();
}
