import { call, callAllPages } from "../../api.js";
import { pageSize } from "./monitor-shape.js";

/** Alert channels, policies and events: the same shapes in both forms (only the page-size name differs). */
export const channelTypes = [
  "webhook",
  "email",
  "slack",
  "dingtalk",
  "feishu",
  "wecom",
  "pagerduty",
  "sms",
] as const;
export type ChannelType = (typeof channelTypes)[number];

export interface Channel {
  id: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  created_at: string;
  /** How its alerts are going (absent from servers before it was added). */
  delivery?: ChannelDelivery;
}

/** `delivery` of a channel: failing (since, the next attempt), the last error, what waits. */
export interface ChannelDelivery {
  failing: boolean;
  failing_since: string | null;
  next_attempt_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  queued: number;
}

export interface Policy {
  id: string;
  name: string;
  /** Null for a policy of every monitor (`scope: "all"`). */
  monitor_id: string | null;
  /** `all`: every monitor of the account, those added later too (absent from older servers). */
  scope?: "monitor" | "all";
  channel_ids: string[];
  on_down: boolean;
  on_up: boolean;
  reminder_minutes: number | null;
  created_at: string;
}

export interface AlertEvent {
  id: string;
  policy_id: string;
  monitor_id: string;
  type: "down" | "up" | "reminder" | "escalation" | "test";
  created_at: string;
  detail: {
    from?: string;
    to?: string;
    nodes?: { node_id: string; error_code: string | null }[];
    /** monitor_stale: why no run completed (issue #29). */
    reason?: string;
    /** down: each failing node's traceroute and DNS for the target's host (issue #29). */
    evidence?: EventEvidence[];
  } | null;
  /** A down alert acknowledged (its escalation and reminders stopped); null until then. */
  acknowledged_at?: string | null;
}

export interface TestResult {
  ok: boolean;
  status: number | null;
  reason: string | null;
}

interface Page<T> {
  items: T[];
  total: number;
}

/** All of them: a policy's form offers every channel, and the list shows every policy. */
export const listChannels = (): Promise<Page<Channel>> => callAllPages<Channel>("/v1/alert-channels");
export const listPolicies = (): Promise<Page<Policy>> => callAllPages<Policy>("/v1/alert-policies");
export const listEvents = (type: string) =>
  call<Page<AlertEvent>>("GET", `/v1/alert-events?${pageSize}=20${type ? `&type=${type}` : ""}`);
/** Acknowledges a down alert: its escalation steps and reminders stop. */
export const ackEvent = (id: string) =>
  call<AlertEvent>("POST", `/v1/alert-events/${encodeURIComponent(id)}/ack`);

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** One failing node's evidence on a down event (`detail.evidence`). */
export interface EventEvidence {
  node_id: string;
  host: string;
  /** The node's mtr to the host; null (or absent, older events) where it traced instead. */
  mtr?: EvidenceProbe | null;
  /** A node without mtr: its traceroute; null when mtr ran. */
  traceroute: EvidenceProbe | null;
  dns: EvidenceProbe | null;
}

interface EvidenceProbe {
  success: boolean;
  error: { code: string; message: string } | null;
  detail: {
    hops?: { hop: number; ip: string | null; rtts: (number | null)[] }[];
    reached?: boolean;
    answers?: { value: string }[];
    rcode?: string;
  } | null;
}
