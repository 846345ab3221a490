import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type { DeliveryAttempt } from "../../db/tables/alerts.js";
import { alertChannels, buildAlert } from "./channels/registry.js";
import { SendError } from "./channels/send.js";
import type {
  AlertKind,
  AlertLocale,
  AlertMessage,
  ChannelContext,
  ChannelType,
  Verdict,
} from "./channels/types.js";

/** What one send came to: the vendor's verdict and the last HTTP status (null without an answer). */
export type SendOutcome = Verdict & { status: number | null };

/** A delivery claimed for an attempt. */
interface Claimed {
  id: string;
  event_id: string;
  channel_id: string;
  attempts: number;
}

export interface DelivererDeps {
  db: Kysely<Database>;
  log: Logger;
  ctx: ChannelContext;
  /** An HTTP request through the guarded client (`sendHttp` with the deployment's guard and timeout). */
  send(req: { url: string; method: "POST"; headers: Record<string, string>; body: string }): Promise<{
    status: number;
    body: string;
  }>;
  /** Hands a mail to the SMTP outbox (the delivery module), which retries it on its own. */
  enqueueEmail(mail: { to: string[]; subject: string; text: string }): Promise<void>;
  /** The channel's secret settings, opened (lib/secret-box.ts); {} when it has none. */
  openSecrets(row: { id: string; secrets: string | null }): Record<string, unknown>;
  now?: () => number;
  random?: () => number;
  /** Consecutive failures of one channel that open its breaker, and for how long (default 5, 60 s). */
  breaker?: { failures: number; openMs: number };
  /** Attempts before a delivery is given up (default 20: with the backoff, about half a day). */
  maxAttempts?: number;
}

/** Backoff with full jitter: a random wait up to 10 s · 2^(attempt−1), at most 30 minutes. */
export function backoffMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(30 * 60_000, 10_000 * 2 ** Math.max(0, attempt - 1));
  return Math.max(1000, Math.floor(random() * ceiling));
}

/** While a claimed delivery is being sent, no other notifier takes it. */
const LEASE_MS = 2 * 60_000;

/**
 * The alert delivery worker's core (the notifier role runs it): claims due deliveries with FOR UPDATE SKIP
 * LOCKED (any number of controllers; each delivery goes to one at a time), renders the event for its
 * channel, sends it, reads the vendor's answer (HTTP status and body), and records the attempt in the
 * delivery's log: sent, retried later with jittered backoff, or failed for good. A channel that fails
 * `breaker.failures` times in a row is left alone for `breaker.openMs` (its deliveries wait, unspent), so
 * one dead endpoint does not hold up the others.
 */
export function createDeliverer(deps: DelivererDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const breakerAt = deps.breaker ?? { failures: 5, openMs: 60_000 };
  const maxAttempts = deps.maxAttempts ?? 20;
  const breakers = new Map<string, { failures: number; openUntil: number }>();

  const record = async (d: Claimed, attempt: DeliveryAttempt, next: "sent" | "retry" | "failed") => {
    const at = new Date(now());
    await deps.db
      .updateTable("alert_deliveries")
      .set({
        status: next === "retry" ? "pending" : next,
        ...(next === "sent" ? { sent_at: at } : {}),
        last_error: attempt.ok ? null : attempt.reason,
        next_attempt_at: next === "retry" ? new Date(at.getTime() + backoffMs(d.attempts, random)) : at,
        log: sql<string>`log || ${jsonb<string>([attempt])}`,
      })
      .where("id", "=", d.id)
      .execute();
  };

  /** Renders and sends one message on one channel; the vendor's verdict with the last HTTP status. */
  const sendTo = async (
    channel: { id: string; type: ChannelType; config: unknown; secrets: string | null },
    message: AlertMessage,
  ): Promise<SendOutcome> => {
    let verdict: SendOutcome = { ok: true, status: null };
    try {
      const config = {
        ...(channel.config as Record<string, unknown>),
        ...deps.openSecrets({ id: channel.id, secrets: channel.secrets }),
      };
      for (const req of buildAlert(channel.type, config, message, deps.ctx)) {
        if (req.kind === "email") {
          await deps.enqueueEmail(req);
          continue;
        }
        const res = await deps.send(req);
        const v = alertChannels[channel.type].judge(res.status, res.body);
        if (!v.ok) return { ...v, status: res.status };
        verdict = { ok: true, status: res.status };
      }
    } catch (err) {
      return err instanceof SendError
        ? { ok: false, retry: err.retry, reason: err.message, status: null }
        : {
            ok: false,
            retry: false,
            reason: `cannot build the message: ${(err as Error).message}`,
            status: null,
          };
    }
    return verdict;
  };

  const attemptOne = async (d: Claimed): Promise<"sent" | "retry" | "failed" | "postponed"> => {
    const row = await deps.db
      .selectFrom("alert_deliveries as d")
      .innerJoin("alert_events as e", "e.id", "d.event_id")
      .innerJoin("users as u", "u.id", "e.owner_id")
      .leftJoin("alert_channels as c", (j) =>
        j.onRef("c.id", "=", "d.channel_id").onRef("c.owner_id", "=", "e.owner_id"),
      )
      .leftJoin("monitors as m", "m.id", "e.monitor_id")
      .select([
        "e.type",
        "e.detail",
        "e.created_at",
        "u.locale",
        "c.id as channel_id",
        "c.type as channel_type",
        "c.config",
        "c.secrets",
        "m.id as monitor_id",
        "m.name as monitor_name",
        "m.type as monitor_type",
        "m.target",
      ])
      .where("d.id", "=", d.id)
      .executeTakeFirst();
    const at = new Date(now()).toISOString();
    if (!row?.channel_id || !row.channel_type || !(row.channel_type in alertChannels)) {
      await record(d, { at, ok: false, status: null, reason: "the channel no longer exists" }, "failed");
      return "failed";
    }
    const breaker = breakers.get(row.channel_id);
    if (breaker && breaker.openUntil > now()) {
      // Not spent: the attempt is given back and the delivery waits for the breaker.
      await deps.db
        .updateTable("alert_deliveries")
        .set({ attempts: sql<number>`attempts - 1`, next_attempt_at: new Date(breaker.openUntil) })
        .where("id", "=", d.id)
        .execute();
      return "postponed";
    }
    const detail = (row.detail ?? {}) as {
      slot?: string;
      nodes?: { node_id: string; error_code: string | null }[];
    };
    const message: AlertMessage = {
      kind: row.type as AlertKind,
      event_id: d.event_id,
      monitor: row.monitor_id
        ? {
            id: row.monitor_id,
            name: row.monitor_name ?? "",
            type: row.monitor_type ?? "",
            target: row.target ?? "",
          }
        : null,
      occurred_at: detail.slot ?? new Date(row.created_at).toISOString(),
      nodes: detail.nodes ?? [],
      locale: (["en", "cn", "tw"].includes(row.locale) ? row.locale : "en") as AlertLocale,
    };
    const verdict = await sendTo(
      { id: row.channel_id, type: row.channel_type as ChannelType, config: row.config, secrets: row.secrets },
      message,
    );
    const attempt: DeliveryAttempt = {
      at,
      ok: verdict.ok,
      status: verdict.status ?? null,
      reason: verdict.ok ? null : verdict.reason,
    };
    if (verdict.ok) {
      breakers.delete(row.channel_id);
      await record(d, attempt, "sent");
      return "sent";
    }
    const b = breakers.get(row.channel_id) ?? { failures: 0, openUntil: 0 };
    b.failures++;
    if (b.failures >= breakerAt.failures) b.openUntil = now() + breakerAt.openMs;
    breakers.set(row.channel_id, b);
    const next = verdict.retry && d.attempts < maxAttempts ? "retry" : "failed";
    await record(d, attempt, next);
    if (next === "failed")
      deps.log.warn({ delivery_id: d.id, reason: attempt.reason }, "alert delivery failed for good");
    return next;
  };

  return {
    /**
     * A test message to one of the owner's channels, sent now (not through the outbox): the outcome is the
     * answer of `POST /v1/alert-channels/{id}/test`. Another account's or an unknown channel → null.
     */
    async sendTest(
      channelId: string,
      ownerId: string,
      locale: AlertLocale = "en",
    ): Promise<SendOutcome | null> {
      const c = await deps.db
        .selectFrom("alert_channels")
        .select(["id", "type", "config", "secrets"])
        .where("id", "=", channelId)
        .where("owner_id", "=", ownerId)
        .executeTakeFirst();
      if (!c || !(c.type in alertChannels)) return null;
      return sendTo(
        { ...c, type: c.type as ChannelType },
        {
          kind: "test",
          event_id: `test_${channelId}_${now().toString(36)}`,
          monitor: null,
          occurred_at: new Date(now()).toISOString(),
          nodes: [],
          locale,
        },
      );
    },
    /** Claims and attempts up to `limit` due deliveries; counts by outcome. */
    async runOnce(limit = 50): Promise<Record<"sent" | "retry" | "failed" | "postponed", number>> {
      const lease = new Date(now() + LEASE_MS);
      const { rows } = await sql<Claimed>`
        update alert_deliveries set next_attempt_at = ${lease}, attempts = attempts + 1
        where id in (
          select id from alert_deliveries
          where status = 'pending' and next_attempt_at <= ${new Date(now())}
          order by next_attempt_at limit ${limit}
          for update skip locked
        )
        returning id, event_id, channel_id, attempts`.execute(deps.db);
      const counts = { sent: 0, retry: 0, failed: 0, postponed: 0 };
      // Channels in parallel, each channel's deliveries in order (its breaker sees each outcome).
      const byChannel = new Map<string, Claimed[]>();
      for (const r of rows) {
        const d = { ...r, attempts: Number(r.attempts) };
        const list = byChannel.get(r.channel_id);
        if (list) list.push(d);
        else byChannel.set(r.channel_id, [d]);
      }
      await Promise.all(
        [...byChannel.values()].map(async (list) => {
          for (const d of list) {
            try {
              counts[await attemptOne(d)]++;
            } catch (err) {
              deps.log.warn(
                { err, delivery_id: d.id },
                "alert delivery attempt could not be recorded; it is retried after its lease",
              );
            }
          }
        }),
      );
      return counts;
    },
  };
}
