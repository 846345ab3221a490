import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { AlertEventType, DeliveryAttempt, EscalationStep } from "../../db/tables/alerts.js";
import type { PlanLimits, PlanRow } from "../../lib/plans.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { ChannelType } from "./channels/types.js";
import type * as repo from "./repo.js";

/*
 * The alerts API's types: what its service takes and answers (service.ts implements `AlertsService`).
 */

/** What a secret setting shows in every answer; sent back in a PATCH it means "keep the stored value". */
export const SECRET_MASK = "********";

/** Who acts: the account (a `Principal` is one). */
export interface AlertsOwner {
  userId: string;
}

/** What a channel test answers: the outcome is data, whatever it is. */
export interface TestOutcome {
  ok: boolean;
  /** The vendor's HTTP status; null when no answer came (and for email, handed to the outbox). */
  status: number | null;
  /** Why it failed; null or absent when it did not. */
  reason?: string | null;
  /** One entry per request, when the channel sends several (SMS: one per number). */
  attempts?: DeliveryAttempt[];
}

/** A channel as every caller sees it: each secret setting that is set shows `SECRET_MASK`, never itself. */
export interface AlertChannelView {
  id: string;
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  delivery: ChannelDeliveryState;
}

/** A channel just created: its view, and the secret settings the service made for it (shown this once). */
export interface CreatedChannel extends AlertChannelView {
  generated?: Record<string, string>;
}

/** How the channel's deliveries are going: whether it is failing, since when, why, and what waits. */
export interface ChannelDeliveryState {
  failing: boolean;
  failing_since: Date | null;
  /** While failing: when it is tried next (a probe); null otherwise. */
  next_attempt_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  /** Deliveries waiting to be sent. */
  queued: number;
}

export type AlertPolicy = Omit<repo.PolicyRow, "owner_id">;
export type AlertEvent = Omit<repo.EventRow, "owner_id" | "state_change_id">;
export type AlertDelivery = Pick<
  repo.DeliveryRow,
  "channel_id" | "status" | "attempts" | "sent_at" | "last_error" | "log"
>;

export interface NewChannel {
  name: string;
  type: ChannelType;
  /** Checked by the type's schema; errors name `body.config.<key>`. */
  config?: Record<string, unknown> | undefined;
}

export interface ChannelPatch {
  name?: string | undefined;
  /**
   * Merged into the stored settings key by key: `null` removes a key, a secret key sent as `SECRET_MASK`
   * keeps its stored value. The result is checked as on creation.
   */
  config?: Record<string, unknown> | undefined;
}

export interface NewPolicy {
  name: string;
  /** `all`: every monitor of the owner, those made later included (no `monitorId`). */
  scope: "monitor" | "all";
  /** Required for scope `monitor`, refused for `all`. */
  monitorId?: string | undefined;
  /** Repeats are dropped (a channel is alerted once per event). */
  channelIds?: string[] | undefined;
  onDown?: boolean | undefined;
  onUp?: boolean | undefined;
  /** 5–1440, or null: no reminders. */
  reminderMinutes?: number | null | undefined;
  /** Escalation steps, rising `after_minutes`; channels the owner's. */
  escalation?: EscalationStep[] | undefined;
}

/** Omitted (undefined) fields are unchanged; the monitor never changes. */
export interface PolicyPatch {
  name?: string | undefined;
  /** Replaces the list; repeats are dropped. */
  channelIds?: string[] | undefined;
  onDown?: boolean | undefined;
  onUp?: boolean | undefined;
  reminderMinutes?: number | null | undefined;
  escalation?: EscalationStep[] | undefined;
}

export interface PageQuery {
  page: number;
  limit: number;
}

export interface EventQuery extends PageQuery {
  monitorId?: string | undefined;
  type?: AlertEventType | undefined;
}

export interface Paged<T> {
  items: T[];
  total: number;
}

/** The alerts API's verbs: the routes of both forms call them; they never ask which form is active. */
export interface AlertsService {
  createChannel(owner: AlertsOwner, input: NewChannel): Promise<CreatedChannel>;
  /** A page of the owner's channels, newest first, and how many there are. */
  listChannels(owner: AlertsOwner, page: PageQuery): Promise<Paged<AlertChannelView>>;
  getChannel(owner: AlertsOwner, id: string): Promise<AlertChannelView>;
  updateChannel(owner: AlertsOwner, id: string, patch: ChannelPatch): Promise<AlertChannelView>;
  /** Also takes the channel out of the owner's policies. */
  removeChannel(owner: AlertsOwner, id: string): Promise<void>;
  /** Sends a test message through the channel now; a failed send is an outcome, not an error. */
  testChannel(owner: AlertsOwner, id: string): Promise<TestOutcome>;
  createPolicy(owner: AlertsOwner, input: NewPolicy): Promise<AlertPolicy>;
  listPolicies(
    owner: AlertsOwner,
    query: PageQuery & { monitorId?: string | undefined },
  ): Promise<Paged<AlertPolicy>>;
  getPolicy(owner: AlertsOwner, id: string): Promise<AlertPolicy>;
  updatePolicy(owner: AlertsOwner, id: string, patch: PolicyPatch): Promise<AlertPolicy>;
  removePolicy(owner: AlertsOwner, id: string): Promise<void>;
  /** A page of the owner's events, newest first, and how many match. */
  listEvents(owner: AlertsOwner, query: EventQuery): Promise<Paged<AlertEvent>>;
  /** The event with its deliveries (one per channel, by channel id). */
  getEvent(owner: AlertsOwner, id: string): Promise<AlertEvent & { deliveries: AlertDelivery[] }>;
  /**
   * Acknowledges a down event (escalation and reminders stop); idempotent for the owner. Another type →
   * 409 `conflict`.
   */
  acknowledge(owner: AlertsOwner, id: string): Promise<AlertEvent>;
}

export interface AlertsServiceContext {
  db: Kysely<Database>;
  log: Logger;
  /** The plan table: `alert_channels` (per account) comes from the account's plan. */
  plans: Record<PlanRow, PlanLimits>;
  /** Seals channel secrets; undefined without `VANTAGE_SECRET_KEY`: channels with secrets are refused. */
  box: SecretBox | undefined;
  /** VANTAGE_ALLOW_PRIVATE_TARGETS: without it a config URL naming a private address is refused (422). */
  allowPrivate: boolean;
  /** Sends a test message now; null when the owner has no such channel (it went meanwhile). */
  sendTest(channelId: string, ownerId: string): Promise<TestOutcome | null>;
  now?: () => number;
}
