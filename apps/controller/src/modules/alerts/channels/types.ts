import type { z } from "@hono/zod-openapi";

/**
 * The message kinds a channel renders: an outage, its end, a reminder while it lasts, a channel test, and a
 * monitor with no completed run for two intervals (its state unknown, `reason` saying why).
 */
export type AlertKind = "down" | "up" | "reminder" | "test" | "monitor_stale";

export type AlertLocale = "en" | "cn" | "tw";

/** What a channel renders: one event of one monitor (none for a test), in the account's locale. */
export interface AlertMessage {
  kind: AlertKind;
  /** Stable across retries: ids and dedup keys derive from it, so a retried delivery is recognisable. */
  event_id: string;
  monitor: { id: string; name: string; type: string; target: string } | null;
  /** When the state changed (a reminder: when it was sent), ISO 8601. */
  occurred_at: string;
  error?: string | null;
  /**
   * A down alert's evidence: per failing node, its mtr (or traceroute) to the target's host and its resolver's
   * answer for the name (null for an IP target), as the probes returned them (issue #29 item 3).
   */
  evidence?: AlertEvidence[];
  /** Where the event, evidence included, can be read: `GET /v1/alert-events/{id}` on the public URL. */
  event_url?: string | null;
  /** monitor_stale: why no run completed (`no_nodes`, `scheduler_behind`, `paused_by_system`). */
  reason?: string | null;
  /** The nodes whose checks failed, with their error codes. */
  nodes?: { node_id: string; error_code: string | null }[];
  locale: AlertLocale;
  dashboard_url?: string | null;
  /** A down alert's signed acknowledgement link (works signed-out, once); absent without a public URL. */
  ack_url?: string | null;
}

/** One probe of the evidence, as the probes returned it. */
export interface EvidenceProbeResult {
  success: boolean;
  error: { code: string } | null;
  detail: Record<string, unknown> | null;
}

/** One failing node's evidence (the monitors module's NodeEvidence, as stored on the event). */
export interface AlertEvidence {
  node_id: string;
  host: string;
  /** The node's mtr to the host; null where the node had no mtr and traced instead. */
  mtr?: EvidenceProbeResult | null;
  /** The node's traceroute (a node without mtr); null when mtr ran. */
  traceroute: EvidenceProbeResult | null;
  dns: EvidenceProbeResult | null;
}

export type ChannelType =
  | "email"
  | "webhook"
  | "slack"
  | "dingtalk"
  | "feishu"
  | "wecom"
  | "pagerduty"
  | "sms";

/** One request a channel wants made: HTTP through the guarded client, or a mail for the SMTP outbox. */
export type OutgoingRequest =
  | { kind: "http"; url: string; method: "POST"; headers: Record<string, string>; body: string }
  | { kind: "email"; to: string[]; subject: string; text: string };

/** A vendor's answer read: delivered, or failed (and whether trying again later may help). */
export type Verdict = { ok: true } | { ok: false; retry: boolean; reason: string };

export interface ChannelContext {
  /** Epoch ms: signature timestamps. */
  now(): number;
  /** Events API v2 endpoint, e.g. https://events.pagerduty.com/v2/enqueue. */
  pagerdutyUrl: string;
  /** Base of the Twilio-compatible Messages API, e.g. https://api.twilio.com. */
  smsBaseUrl: string;
  /** A fresh id. No channel needs one yet: ids that must survive a retry derive from `event_id`. */
  randomId(): string;
}

/**
 * One channel type. `build` is pure (given `ctx`): a test checks the exact wire format, signature included,
 * without a network. It returns a list because SMS sends one request per recipient; the others send one.
 * `judge` reads the vendor's answer to one request: several vendors answer HTTP 200 to a failure.
 */
export interface AlertChannel<C> {
  readonly type: ChannelType;
  /** Strict, every string and list bounded. */
  readonly configSchema: z.ZodType<C>;
  /** Config keys holding secrets (tokens, signing keys, URLs that are credentials): stored encrypted, never echoed. */
  readonly secretFields: readonly (keyof C & string)[];
  /**
   * Secret settings the service makes when a new channel's config leaves them out (a webhook's signing
   * secret): each made value is answered once, in the creation answer's `generated`, and sealed like a
   * given one. A setting the caller sends is taken as sent.
   */
  readonly generatedSecrets?: { readonly [K in keyof C & string]?: () => string };
  build(message: AlertMessage, config: C, ctx: ChannelContext): OutgoingRequest[];
  judge(status: number, body: string): Verdict;
}
