import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type { DeliveryAttempt } from "../../db/tables/alerts.js";
import { type ChannelHealth, channelHealth, defaultRetry, type RetryPolicy } from "./channel-health.js";
import { alertChannels, buildAlert } from "./channels/registry.js";
import { SendError } from "./channels/send.js";
import type {
  AlertEvidence,
  AlertKind,
  AlertLocale,
  AlertMessage,
  ChannelContext,
  ChannelType,
  Verdict,
} from "./channels/types.js";

/** What one send came to: the vendor's verdict and the last HTTP status (null without an answer). */
export type SendOutcome = Verdict & { status: number | null };

/**
 * A delivery claimed for an attempt. `due_at` is its place in the queue, kept when it is tried again: the
 * timestamp as PostgreSQL's text, since its microseconds order a burst (a Date would drop them; so would
 * postgres.js's timestamptz parameters, hence the casts from text); `rank` is its place in the claim.
 */
interface Claimed {
  id: string;
  event_id: string;
  channel_id: string;
  attempts: number;
  due_at: string;
  rank: number;
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
  /** How failing channels are tried again (default `defaultRetry`). */
  retry?: Partial<RetryPolicy>;
  /** The signed acknowledgement link of a down event (issue #29 item 6); null without a public URL. */
  ackUrl?: (downEventId: string) => string | null;
  /** Where an event can be read (`GET /v1/alert-events/{id}`, evidence included); null without one. */
  eventUrl?: (eventId: string) => string | null;
}

/** While a claimed delivery is being sent, no other notifier takes it. */
const LEASE_MS = 2 * 60_000;
/** A notifier probing a failing channel holds it this long (longer than a send may take: 10 s). */
const PROBE_LEASE_MS = 30_000;

type Outcome = "sent" | "retry" | "failed" | "postponed";

/**
 * The alert delivery worker's core (the notifier role runs it): claims due deliveries with FOR UPDATE SKIP
 * LOCKED (any number of controllers; each delivery goes to one at a time), renders the event for its
 * channel, sends it, reads the vendor's answer (HTTP status and body), and records the attempt in the
 * delivery's log. A retryable failure marks the channel failing in the database, shared by every notifier
 * (`RetryPolicy`): its deliveries wait unspent, in order, while one probe at a time finds out whether the
 * receiver is back; a channel that is away holds up no other.
 */
export function createDeliverer(deps: DelivererDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const health = channelHealth({
    db: deps.db,
    log: deps.log,
    now,
    random,
    policy: { ...defaultRetry, ...deps.retry },
  });

  const record = async (d: Claimed, attempt: DeliveryAttempt, next: "sent" | "retry" | "failed") => {
    const at = new Date(now());
    await deps.db
      .updateTable("alert_deliveries")
      .set({
        status: next === "retry" ? "pending" : next,
        ...(next === "sent" ? { sent_at: at } : {}),
        last_error: attempt.ok ? null : attempt.reason,
        // Tried again, it keeps its place in the queue; its channel's `retry_at` says when.
        next_attempt_at: next === "retry" ? sql<Date>`cast(cast(${d.due_at} as text) as timestamptz)` : at,
        log: sql<string>`log || ${jsonb<string>([attempt])}`,
      })
      .where("id", "=", d.id)
      .execute();
  };

  /** Gives claimed deliveries back unspent, each at its place in the queue. */
  const release = async (list: Claimed[]) => {
    if (list.length === 0) return;
    await sql`
      update alert_deliveries d set attempts = d.attempts - 1, next_attempt_at = r.due_at
      from unnest(cast(${list.map((d) => d.id)} as text[]), cast(cast(${list.map((d) => d.due_at)} as text[]) as timestamptz[]))
        as r(id, due_at)
      where d.id = r.id`.execute(deps.db);
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

  /**
   * Sends one claimed delivery. `failed` in the answer says its channel failed (retryable): the caller
   * gives the rest of that channel's deliveries back.
   */
  const attemptOne = async (d: Claimed): Promise<{ outcome: Outcome; channelFailed: boolean }> => {
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
        "c.failing_since",
        "c.failures",
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
      return { outcome: "failed", channelFailed: false };
    }
    const detail = (row.detail ?? {}) as {
      slot?: string;
      nodes?: { node_id: string; error_code: string | null }[];
      reason?: string;
      evidence?: AlertEvidence[];
    };
    // An escalation tells its channels about the outage itself: a down message, linked to the down event.
    const downEventId =
      row.type === "down"
        ? d.event_id
        : row.type === "escalation"
          ? (detail as { escalates?: string }).escalates
          : undefined;
    const ackUrl = downEventId ? (deps.ackUrl?.(downEventId) ?? null) : null;
    const message: AlertMessage = {
      ...(ackUrl ? { ack_url: ackUrl } : {}),
      kind: (row.type === "escalation" ? "down" : row.type) as AlertKind,
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
      // Evidence on alert: the failing nodes' traceroute and DNS, and the link to the whole event.
      ...(Array.isArray(detail.evidence) && detail.evidence.length > 0
        ? { evidence: detail.evidence, event_url: deps.eventUrl?.(d.event_id) ?? null }
        : {}),
      // A stale monitor's message says why no run completed (no_nodes, scheduler_behind, paused_by_system).
      ...(row.type === "monitor_stale"
        ? { reason: detail.reason ?? null, error: detail.reason ?? null }
        : {}),
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
    const was: ChannelHealth = {
      failing_since: row.failing_since ?? null,
      failures: Number(row.failures ?? 0),
    };
    if (verdict.ok) {
      await record(d, attempt, "sent");
      await health.well(row.channel_id, was);
      return { outcome: "sent", channelFailed: false };
    }
    if (!verdict.retry) {
      // The receiver answered, and this message will never pass: it fails alone; the channel is reachable.
      await record(d, attempt, "failed");
      await deps.db
        .updateTable("alert_channels")
        .set({ last_error: verdict.reason.slice(0, 1000), last_error_at: new Date(now()) })
        .where("id", "=", row.channel_id)
        .execute();
      await health.well(row.channel_id, was);
      deps.log.warn({ delivery_id: d.id, reason: attempt.reason }, "alert delivery failed for good");
      return { outcome: "failed", channelFailed: false };
    }
    await record(d, attempt, "retry");
    await health.failed(row.channel_id, was, verdict.reason);
    return { outcome: "retry", channelFailed: true };
  };

  /**
   * One channel's claimed deliveries, oldest first. A failing channel is probed by one notifier at a time
   * (it takes `retry_at` forward first); the first retryable failure gives the rest back unspent.
   */
  const runChannel = async (channelId: string, list: Claimed[], counts: Record<Outcome, number>) => {
    const failing = await deps.db
      .selectFrom("alert_channels")
      .select("failing_since")
      .where("id", "=", channelId)
      .executeTakeFirst();
    if (failing?.failing_since) {
      const at = new Date(now());
      const taken = await deps.db
        .updateTable("alert_channels")
        .set({ retry_at: new Date(at.getTime() + PROBE_LEASE_MS) })
        .where("id", "=", channelId)
        .where((eb) => eb.or([eb("retry_at", "is", null), eb("retry_at", "<=", at)]))
        .returning("id")
        .executeTakeFirst();
      if (!taken) {
        await release(list);
        counts.postponed += list.length;
        return;
      }
    }
    for (const [i, d] of list.entries()) {
      try {
        const { outcome, channelFailed } = await attemptOne(d);
        counts[outcome]++;
        if (channelFailed) {
          const rest = list.slice(i + 1);
          await release(rest);
          counts.postponed += rest.length;
          return;
        }
      } catch (err) {
        deps.log.warn(
          { err, delivery_id: d.id },
          "alert delivery attempt could not be recorded; it is retried after its lease",
        );
      }
    }
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
    /**
     * Claims and attempts up to `limit` due deliveries of channels that may be tried now (well ones, and
     * failing ones whose `retry_at` has come); counts by outcome.
     */
    async runOnce(limit = 50): Promise<Record<Outcome, number>> {
      const at = new Date(now());
      const lease = new Date(at.getTime() + LEASE_MS);
      // A channel's due deliveries go to one notifier per round: its row is locked while they are claimed
      // (another notifier at the same moment skips the channel), so its oldest is the one a failing
      // channel's probe sends. Claimed per delivery, two notifiers split a queue, and the one that took the
      // probe could send a newer delivery than the oldest. Deliveries of a deleted channel are claimed too
      // (to be failed).
      const { rows } = await sql<Claimed>`
        with channels as (
          select c.id from alert_channels c
          where (c.retry_at is null or c.retry_at <= ${at})
            and exists (select 1 from alert_deliveries d
              where d.channel_id = c.id and d.status = 'pending' and d.next_attempt_at <= ${at})
          for no key update skip locked
        ), picked as (
          select d.id, d.next_attempt_at from alert_deliveries d
          where d.status = 'pending' and d.next_attempt_at <= ${at}
            and (d.channel_id in (select id from channels)
              or not exists (select 1 from alert_channels c where c.id = d.channel_id))
          order by d.next_attempt_at, d.id limit ${limit}
          for update of d skip locked
        ), due as (
          select id, next_attempt_at::text as due_at, row_number() over (order by next_attempt_at, id) as rank
          from picked
        )
        update alert_deliveries set next_attempt_at = ${lease}, attempts = alert_deliveries.attempts + 1
        from due where alert_deliveries.id = due.id
        returning alert_deliveries.id, alert_deliveries.event_id, alert_deliveries.channel_id,
          alert_deliveries.attempts, due.due_at, due.rank`.execute(deps.db);
      const counts: Record<Outcome, number> = { sent: 0, retry: 0, failed: 0, postponed: 0 };
      // Channels in parallel, each channel's deliveries in order, oldest first.
      const byChannel = new Map<string, Claimed[]>();
      for (const r of rows) {
        const d = { ...r, attempts: Number(r.attempts), due_at: String(r.due_at), rank: Number(r.rank) };
        const list = byChannel.get(r.channel_id);
        if (list) list.push(d);
        else byChannel.set(r.channel_id, [d]);
      }
      await Promise.all(
        [...byChannel].map(async ([channelId, list]) => {
          list.sort((x, y) => x.rank - y.rank);
          try {
            await runChannel(channelId, list, counts);
          } catch (err) {
            deps.log.warn(
              { err, channel_id: channelId },
              "alert channel round failed; retried after the lease",
            );
          }
        }),
      );
      return counts;
    },
  };
}
