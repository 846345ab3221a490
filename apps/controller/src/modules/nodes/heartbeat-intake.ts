import {
  type Heartbeat,
  heartbeatSchema,
  isCompatibleVersion,
  PROTOCOL_VERSION,
  type VersionNotice,
} from "@vantage/protocol";
import type { ControllerTransport } from "@vantage/transport";
import type { Logger } from "pino";
import { z } from "zod";
import type { NodeState } from "./directory.js";
import { PerNodeLimit } from "./per-node-limit.js";

const DEFAULT_VERSION_NOTICE_INTERVAL_MS = 60_000;
const DEFAULT_MALFORMED_LOG_INTERVAL_MS = 60_000;

/**
 * What any protocol version's heartbeat has in common: an object with an integer `v`. Only such a message
 * can be "of another version"; anything else is malformed whatever version its sender meant to speak.
 */
const versionedSchema = z.object({ v: z.number().int() });

/** The first validation issue, as `path: message`, for the log. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const path = issue.path.map(String).join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * The heartbeats presence takes: of this protocol version, well formed, and from the node their subject
 * names. The others are dropped; while `isWriting()` (the presence role) they are warned about, and an
 * agent of another version is told so on its job subject, each at most once per node and interval.
 */
export function heartbeatCheck(
  opts: {
    transport: ControllerTransport;
    log: Logger;
    versionNoticeIntervalMs?: number | undefined;
    malformedLogIntervalMs?: number | undefined;
  },
  isWriting: () => boolean,
): { accept(nodeId: string, message: unknown): Heartbeat | undefined; prune(): void } {
  const { log } = opts;
  // When a node was last told (and the log last warned) that its protocol version is refused.
  const versionNotices = new PerNodeLimit(opts.versionNoticeIntervalMs ?? DEFAULT_VERSION_NOTICE_INTERVAL_MS);
  // When the log last warned about a node's malformed (or misaddressed) heartbeats.
  const malformedWarnings = new PerNodeLimit(
    opts.malformedLogIntervalMs ?? DEFAULT_MALFORMED_LOG_INTERVAL_MS,
  );

  const malformed = (nodeId: string, issue: string) => {
    if (!isWriting() || !malformedWarnings.allow(nodeId)) return;
    log.warn({ node_id: nodeId, issue }, "malformed heartbeat dropped");
  };

  const accept = (nodeId: string, message: unknown): Heartbeat | undefined => {
    // The version is judged before the shape (another version may well have another shape), but only on a
    // message that has one: without an integer `v` it is malformed, not of another version.
    const versioned = versionedSchema.safeParse(message);
    if (!versioned.success) {
      malformed(nodeId, firstIssue(versioned.error));
      return undefined;
    }
    const v = versioned.data.v;
    if (!isCompatibleVersion(v)) {
      if (isWriting() && versionNotices.allow(nodeId)) {
        log.warn(
          { node_id: nodeId, version: v, expected: PROTOCOL_VERSION },
          "heartbeat with another protocol version: node not registered; the agent was told on its job " +
            "subject. Run the same Vantage release on the controller and the agents",
        );
        // The agent would otherwise never learn why it gets no jobs: its job subject is all it hears.
        const notice: VersionNotice = {
          v: PROTOCOL_VERSION,
          notice: "incompatible_version",
          message:
            `the controller speaks protocol v${PROTOCOL_VERSION} and drops this node's heartbeats of ` +
            `v${v}`,
        };
        opts.transport.notify(nodeId, notice);
      }
      return undefined;
    }
    versionNotices.forget(nodeId);
    const parsed = heartbeatSchema.safeParse(message);
    if (!parsed.success) {
      malformed(nodeId, firstIssue(parsed.error));
      return undefined;
    }
    const hb = parsed.data;
    if (hb.node.id !== nodeId) {
      if (isWriting() && malformedWarnings.allow(nodeId)) {
        log.warn(
          { node_id: nodeId, claimed: hb.node.id },
          "heartbeat names another node than its subject: dropped",
        );
      }
      return undefined;
    }
    return hb;
  };

  return {
    accept,
    prune() {
      versionNotices.prune();
      malformedWarnings.prune();
    },
  };
}

/** A node's state from its heartbeat at `now`, keeping `previous`'s arrays where they are equal. */
export function nodeStateOf(
  nodeId: string,
  hb: Heartbeat,
  previous: NodeState | undefined,
  now: number,
): NodeState {
  return {
    id: nodeId,
    name: hb.node.name,
    country: hb.node.country,
    region: hb.node.region,
    provider: hb.node.provider,
    version: hb.version,
    // The previous array when equal: readers compare by identity, and it is one array less per node.
    capabilities:
      previous && sameStrings(previous.capabilities, hb.capabilities)
        ? previous.capabilities
        : hb.capabilities,
    runningJobs: hb.running_jobs,
    maxJobs: hb.max_jobs,
    lastSeen: now,
    draining: hb.draining,
    ...(hb.signing_key ? { publicKey: hb.signing_key } : {}),
    ...(hb.node.asn === undefined ? {} : { asn: hb.node.asn }),
    ...(hb.node.tags === undefined
      ? {}
      : {
          tags: previous?.tags && sameStrings(previous.tags, hb.node.tags) ? previous.tags : hb.node.tags,
        }),
  };
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether two states of a node differ only where a plain heartbeat differs (`lastSeen`, running jobs): the
 * same listing, status aside. A node marked offline by a probe is back with any heartbeat: not the same.
 */
export function sameListing(a: NodeState, b: NodeState): boolean {
  return (
    a.markedOfflineAt === undefined &&
    a.draining === b.draining &&
    a.name === b.name &&
    a.country === b.country &&
    a.region === b.region &&
    a.provider === b.provider &&
    a.version === b.version &&
    a.publicKey === b.publicKey &&
    a.asn === b.asn &&
    a.tags === b.tags &&
    a.maxJobs === b.maxJobs &&
    a.capabilities === b.capabilities
  );
}
