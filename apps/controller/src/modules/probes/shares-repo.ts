import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";

/** `shr_` + 128 random bits (base64url): unguessable, and it tells nothing of the task or its time. */
export function newShareId(): string {
  return `shr_${randomBytes(16).toString("base64url")}`;
}

export const SHARE_ID_PATTERN = /^shr_[A-Za-z0-9_-]{22}$/;

export interface ShareRecord {
  id: string;
  task_id: string;
  owner_id: string;
  created_at: Date;
}

/** The task's live share, made now unless it has one (at most one per task: the partial unique index). */
export async function publishShare(
  db: Kysely<Database>,
  taskId: string,
  ownerId: string,
): Promise<ShareRecord> {
  for (let attempt = 0; ; attempt++) {
    const live = await liveShareOfTask(db, taskId);
    if (live) return live;
    try {
      const row = await db
        .insertInto("probe_shares")
        .values({ id: newShareId(), task_id: taskId, owner_id: ownerId })
        .returning(["id", "task_id", "owner_id", "created_at"])
        .executeTakeFirstOrThrow();
      return { ...row, created_at: new Date(row.created_at) };
    } catch (err) {
      // Two publishes at once: the other one's share stands (the unique index refused this one).
      if (attempt > 0) throw err;
    }
  }
}

/** The task's live share; undefined when it has none. */
export async function liveShareOfTask(
  db: Kysely<Database>,
  taskId: string,
): Promise<ShareRecord | undefined> {
  const row = await db
    .selectFrom("probe_shares")
    .select(["id", "task_id", "owner_id", "created_at"])
    .where("task_id", "=", taskId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return row && { ...row, created_at: new Date(row.created_at) };
}

/** Revokes the task's live share; false when it had none. */
export async function revokeShare(db: Kysely<Database>, taskId: string): Promise<boolean> {
  const res = await db
    .updateTable("probe_shares")
    .set({ revoked_at: new Date() })
    .where("task_id", "=", taskId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** A live share by its id; undefined when unknown or revoked. */
export async function findLiveShare(db: Kysely<Database>, id: string): Promise<ShareRecord | undefined> {
  const row = await db
    .selectFrom("probe_shares")
    .select(["id", "task_id", "owner_id", "created_at"])
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return row && { ...row, created_at: new Date(row.created_at) };
}
