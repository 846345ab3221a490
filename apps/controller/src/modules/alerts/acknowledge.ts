import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { ApiError } from "../../http/errors.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type * as repo from "./repo.js";

/**
 * Acknowledgement of a down alert (issue #29 item 6): through the API by its owner, or signed-out through
 * the link in the message: `<event id>.<expiry, epoch s>.<HMAC-SHA256>` under a key derived from
 * VANTAGE_SECRET_KEY (lib/secret-box.ts `sign`), purpose `alert-ack`. The link acknowledges once: the
 * event's `acknowledged_at` is set only while null, so a second use is a 409.
 */

/** How long a link in a message works. */
export const ACK_LINK_TTL_S = 7 * 86_400;
const PURPOSE = "alert-ack";

export function ackToken(box: SecretBox, eventId: string, nowMs: number): string {
  const exp = Math.floor(nowMs / 1000) + ACK_LINK_TTL_S;
  return `${eventId}.${exp}.${box.sign(PURPOSE, `${eventId}.${exp}`)}`;
}

/** The event id a token names, or a 400 `invalid_signature` saying why not (altered, expired, malformed). */
export function readAckToken(box: SecretBox | undefined, token: string, nowMs: number): string {
  const parts = token.split(".");
  const bad = (why: string) => new ApiError("invalid_signature", `the acknowledgement link ${why}`);
  if (parts.length !== 3 || !/^[a-z]+_[0-9a-z_]{1,60}$/.test(parts[0]!) || !/^\d{1,12}$/.test(parts[1]!))
    throw bad("is malformed");
  const [eventId, exp, mac] = parts as [string, string, string];
  if (!box?.verify(PURPOSE, `${eventId}.${exp}`, mac)) throw bad("is not signed by this server");
  if (Number(exp) * 1000 < nowMs) throw bad("has expired: acknowledge in the dashboard or the API");
  return eventId;
}

/**
 * Sets the event acknowledged (by a user id or `link`), when it is a down event not acknowledged yet.
 * Answers the row and whether this call did it; undefined for no such event (or another owner's).
 */
export async function acknowledgeEvent(
  db: Kysely<Database>,
  id: string,
  by: string,
  ownerId?: string,
): Promise<{ row: repo.EventRow; now: boolean } | undefined> {
  let q = db
    .updateTable("alert_events")
    .set({ acknowledged_at: new Date(), acknowledged_by: by })
    .where("id", "=", id)
    .where("type", "=", "down")
    .where("acknowledged_at", "is", null);
  if (ownerId !== undefined) q = q.where("owner_id", "=", ownerId);
  const done = await q.returningAll().executeTakeFirst();
  if (done) return { row: done, now: true };
  let r = db.selectFrom("alert_events").selectAll().where("id", "=", id);
  if (ownerId !== undefined) r = r.where("owner_id", "=", ownerId);
  const row = await r.executeTakeFirst();
  if (!row) return undefined;
  if (row.type !== "down")
    throw new ApiError("conflict", `only down alerts are acknowledged; this event is a ${row.type} event`);
  return { row, now: false };
}
