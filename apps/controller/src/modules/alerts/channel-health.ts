import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";

/**
 * How a failing channel is tried again. The channel, not each delivery, waits: after a retryable failure no
 * notifier sends to it until `retry_at`, and then one delivery (the oldest) goes as a probe; when it passes,
 * everything queued follows at once, oldest first. Waits start at `firstMs` and double with each failure in
 * a row up to `fastCapMs` (the probe interval, so a receiver that returns gets its alerts within seconds),
 * jittered down by up to a quarter; a channel failing longer than `slowAfterMs` is tried every `slowCapMs`.
 */
export interface RetryPolicy {
  firstMs: number;
  fastCapMs: number;
  slowAfterMs: number;
  slowCapMs: number;
  /** A delivery whose event is older than this when its channel fails again is given up (failed). */
  giveUpAfterMs: number;
}

/**
 * 1 s, 2 s, then every 3–4 s: at most 20 attempts a minute against a dead receiver (one request each,
 * however many alerts are queued), for its first 10 minutes away; then every 22.5–30 s (≤ 3 a minute).
 */
export const defaultRetry: RetryPolicy = {
  firstMs: 1000,
  fastCapMs: 4000,
  slowAfterMs: 10 * 60_000,
  slowCapMs: 30_000,
  giveUpAfterMs: 12 * 3600_000,
};

/** The wait before a failing channel's next attempt, after `failures` in a row over `failingForMs`. */
export function channelRetryMs(
  failures: number,
  failingForMs: number,
  random: () => number,
  policy: RetryPolicy = defaultRetry,
): number {
  const cap = failingForMs < policy.slowAfterMs ? policy.fastCapMs : policy.slowCapMs;
  const wait = Math.min(cap, policy.firstMs * 2 ** Math.max(0, failures - 1));
  return Math.round(wait * (0.75 + 0.25 * random()));
}

/** A channel's failure state as a delivery's attempt read it. */
export interface ChannelHealth {
  failing_since: Date | null;
  failures: number;
}

/**
 * A channel's failure state in the database, shared by every notifier: `well` clears it when the receiver
 * answers; `failed` counts a retryable failure, sets when the channel is tried next (`RetryPolicy`), and
 * gives up the deliveries that have waited on it longer than the policy allows.
 */
export function channelHealth(deps: {
  db: Kysely<Database>;
  log: Logger;
  now: () => number;
  random: () => number;
  policy: RetryPolicy;
}) {
  const { now, random, policy } = deps;
  const well = async (channelId: string, was: ChannelHealth) => {
    if (!was.failing_since && was.failures === 0) return;
    await deps.db
      .updateTable("alert_channels")
      .set({ failing_since: null, failures: 0, retry_at: null })
      .where("id", "=", channelId)
      .execute();
    if (was.failing_since)
      deps.log.info(
        { channel_id: channelId, failing_since: was.failing_since },
        "alert channel answers again: its queued deliveries go out",
      );
  };

  const failed = async (channelId: string, was: ChannelHealth, reason: string) => {
    const at = now();
    const since = was.failing_since ? new Date(was.failing_since).getTime() : at;
    const failures = was.failures + 1;
    const retryAt = new Date(at + channelRetryMs(failures, at - since, random, policy));
    await deps.db
      .updateTable("alert_channels")
      .set({
        failing_since: new Date(since),
        failures,
        retry_at: retryAt,
        last_error: reason.slice(0, 1000),
        last_error_at: new Date(at),
      })
      .where("id", "=", channelId)
      .execute();
    if (!was.failing_since)
      deps.log.warn(
        { channel_id: channelId, reason, retry_at: retryAt },
        "alert channel failing: its deliveries wait, and it is tried again within seconds",
      );
    // Deliveries waiting longer than the policy allows are given up (not those another notifier holds).
    const cutoff = new Date(at - policy.giveUpAfterMs);
    const given = await sql<{ id: string }>`
      update alert_deliveries set status = 'failed', last_error = ${`given up after its channel failed for too long: ${reason}`.slice(0, 1000)}
      where channel_id = ${channelId} and status = 'pending' and next_attempt_at <= ${new Date(at)}
        and event_id in (select id from alert_events where created_at < ${cutoff})
      returning id`.execute(deps.db);
    if (given.rows.length > 0)
      deps.log.warn(
        { channel_id: channelId, deliveries: given.rows.length },
        "alert deliveries given up: their channel has failed since before they were due",
      );
  };

  return { well, failed };
}
