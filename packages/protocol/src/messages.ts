import { probeJobSpecSchema } from "@vantage/probes";
import * as z from "zod";
import { nodeIdPattern, PROTOCOL_VERSION } from "./subjects.js";

/**
 * Messages on the wire between controller and agents. Every message carries the protocol version; a side
 * that receives another version refuses it with `incompatible_version` and logs it.
 */

/**
 * controller → agent, on `probe.v1.node.<id>.job` (a NATS request; the reply is a JobReply).
 *
 * Time is relative, never an epoch: `budget_ms` counts from the moment the agent receives the job, so the
 * agent's and the controller's clocks need not agree. The controller keeps the network round trip out of
 * it: it waits `budget_ms` plus that allowance for the reply.
 */
export const jobMessageSchema = z.object({
  v: z.int(),
  job_id: z.string().check(z.minLength(1), z.maxLength(64)),
  /** Time the agent may spend on the job, from receipt until its reply is sent (ms). */
  budget_ms: z.int().check(z.gte(1)),
  spec: probeJobSpecSchema,
  /**
   * Asks for progress messages (JobProgress) before the reply, from probes that make progress (mtr: one
   * per round). Optional and additive: an agent that predates it ignores it and sends the reply alone.
   */
  progress: z.optional(z.boolean()),
});
export type JobMessage = z.infer<typeof jobMessageSchema>;

/** Most progress messages one job sends (one per mtr round; rounds are at most 100). */
export const MAX_JOB_PROGRESS = 100;

/**
 * agent → controller, only for a job that asked for it (`progress: true`): the probe's result so far, sent
 * on the request's reply subject (marked as progress by the transport) before the JobReply, at most once
 * per round of the probe. `seq` counts from 1. Unsigned and never stored: the reply alone is the result.
 */
export const jobProgressSchema = z.object({
  v: z.int(),
  job_id: z.string().check(z.maxLength(64)),
  status: z.literal("progress"),
  seq: z.int().check(z.gte(1), z.lte(MAX_JOB_PROGRESS)),
  detail: z.record(z.string(), z.unknown()),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;

export const jobErrorCodes = [
  "busy",
  "incompatible_version",
  "invalid_job",
  "shutting_down",
  "agent_error",
] as const;

/** agent → controller, the reply to a job. `outcome` is the probe's; `refused` says the job never ran. */
export const jobReplySchema = z.discriminatedUnion("status", [
  z.object({
    v: z.int(),
    job_id: z.string(),
    status: z.literal("done"),
    started_at: z.string(),
    duration_ms: z.number(),
    outcome: z.object({
      success: z.boolean(),
      latency_ms: z.nullable(z.number()),
      error: z.nullable(z.object({ code: z.string(), message: z.string() })),
      detail: z.nullable(z.record(z.string(), z.unknown())),
    }),
    /** The agent's release (signed with the result). Optional: agents before signing send neither. */
    agent_version: z.optional(z.string().check(z.maxLength(32))),
    /** The agent's Ed25519 signature of the result's statement (result-signature.ts, docs/verify.md). */
    signature: z.optional(
      z.object({ key: z.string().check(z.maxLength(64)), sig: z.string().check(z.maxLength(128)) }),
    ),
  }),
  z.object({
    v: z.int(),
    job_id: z.string(),
    status: z.literal("refused"),
    error: z.object({ code: z.enum(jobErrorCodes), message: z.string() }),
  }),
]);
export type JobReply = z.infer<typeof jobReplySchema>;

/** At most this many job ids in a crash notice (an agent runs at most this many jobs at once in practice). */
export const MAX_CRASHED_JOBS = 4096;

/** Most operator tags one node carries. */
export const MAX_NODE_TAGS = 16;

/** agent → controller, every few seconds on `probe.v1.node.<id>.hb`. */
export const heartbeatSchema = z.object({
  v: z.int(),
  node: z.object({
    id: z.string().check(z.regex(nodeIdPattern)),
    name: z.string().check(z.minLength(1), z.maxLength(100)),
    country: z.string().check(z.regex(/^[A-Z]{2}$/)),
    region: z.string().check(z.minLength(1), z.maxLength(64)),
    provider: z.string().check(z.minLength(1), z.maxLength(64)),
    /** The network the node probes from (VANTAGE_NODE_ASN), for `AS…` location selectors. */
    asn: z.optional(z.int().check(z.gte(1), z.lte(4_294_967_295))),
    /** Operator-chosen labels (VANTAGE_NODE_TAGS), for location selectors: lower case, digits, dashes. */
    tags: z.optional(
      z.array(z.string().check(z.regex(/^[a-z0-9][a-z0-9-]{0,31}$/))).check(z.maxLength(MAX_NODE_TAGS)),
    ),
  }),
  version: z.string().check(z.minLength(1), z.maxLength(32)),
  capabilities: z.array(z.enum(["ipv4", "ipv6", "icmp", "http", "dns", "tcp", "traceroute", "ping", "mtr"])),
  running_jobs: z.int().check(z.gte(0)),
  max_jobs: z.int().check(z.gte(1)),
  load: z.number().check(z.gte(0)),
  sent_at: z.string(),
  /** The public key (a user nkey, `U…`) the agent signs its results with; absent when it signs none. */
  signing_key: z.optional(z.string().check(z.regex(/^U[A-Z2-7]{55}$/))),
  /** True in the last heartbeat of an agent that is shutting down. */
  draining: z._default(z.boolean(), false),
  /**
   * Only in the crash notice: the agent's last heartbeat (with `draining: true`) sent when an error escaped
   * a job and the process is about to exit. It lists the jobs in flight then; the controller answers them at
   * once (`node_error`) and keeps each one's probe from any agent until someone looks (docs/reliability.md).
   */
  crashed_jobs: z.optional(z.array(z.string().check(z.maxLength(128))).check(z.maxLength(MAX_CRASHED_JOBS))),
});
export type Heartbeat = z.infer<typeof heartbeatSchema>;

/**
 * controller → agent, published (no reply expected) on `probe.v1.node.<id>.job` when the controller drops
 * that node's heartbeats because their protocol version is not its own: the only way to tell an agent,
 * whose credentials let it hear nothing but its job subject. `v` is the controller's version; an agent
 * logs any message of another version it receives there. Kept this small so any version can read it.
 */
export const versionNoticeSchema = z.object({
  v: z.int(),
  notice: z.literal("incompatible_version"),
  message: z.string().check(z.maxLength(500)),
});
export type VersionNotice = z.infer<typeof versionNoticeSchema>;

export function isCompatibleVersion(v: unknown): boolean {
  return v === PROTOCOL_VERSION;
}
