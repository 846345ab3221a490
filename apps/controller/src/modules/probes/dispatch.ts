import type { ProbeJobSpec } from "@vantage/probes";
import {
  canonicalJson,
  type JobMessage,
  type JobReply,
  jobProgressSchema,
  jobReplySchema,
  PROTOCOL_VERSION,
  type ResultStatement,
  verifyResultSignature,
  verifyResultSignatureAsync,
} from "@vantage/protocol";
import { type ControllerTransport, TransportError } from "@vantage/transport";
import type { ResultSignatureRecord } from "../../db/tables/probes.js";
import type { NodeDirectory } from "../nodes/index.js";
import { jobBudgetMs } from "./deadlines.js";
import { type HopNetworks, withHopNetworks } from "./hop-networks.js";
import type { ProbeQuarantine } from "./quarantine.js";
import type { SelectedNode } from "./select-nodes.js";

/** One node's entry in a task, whether the probe ran or the node could not run it. */
export interface NodeResult {
  node_id: string;
  node_name: string;
  position: number;
  success: boolean;
  latency_ms: number | null;
  error: { code: string; message: string } | null;
  detail: Record<string, unknown> | null;
  /** Time the agent spent on the probe (null when it never ran). */
  duration_ms: number | null;
  /**
   * Not shown to callers: the node's agent crashed while running this probe (`node_error`), which may be
   * what ended it. Monitors pause on it; the probe is quarantined.
   */
  agent_crash?: true;
  /**
   * The node's signature of this result, checked against the key its heartbeats announce (docs/verify.md):
   * shown on shared results and exports. Absent when the node signs nothing or the check failed.
   */
  signature?: ResultSignatureRecord | undefined;
}

/** Codes of entries where the node itself could not run the probe (as opposed to a failed probe). */
export const nodeErrorCodes = [
  "node_offline",
  "node_timeout",
  "node_busy",
  "node_error",
  "incompatible_version",
  "probe_quarantined",
  "transport_lost",
] as const;

export interface DispatchInput {
  transport: ControllerTransport;
  directory: NodeDirectory;
  node: SelectedNode;
  position: number;
  spec: ProbeJobSpec;
  jobId: string;
  timeoutMs: number;
  /** Probes that crashed an agent: refused here, and added to when this one does. */
  quarantine?: ProbeQuarantine | undefined;
  /** Where a signature that does not verify is reported (the result is kept, unsigned). */
  onBadSignature?: ((nodeId: string, why: string) => void) | undefined;
  /**
   * What becomes of the node's signature of its result: `check` (the default) keeps it once it verifies;
   * `claim` keeps it once its key is the one the node's heartbeats announce and leaves the Ed25519 check
   * (a tenth of a millisecond of CPU each) to the caller, who must run `confirmSignatures` before the
   * result is stored (Form B checks in the thread pool as each result arrives, and waits for the checks
   * beside the results log's append); `ignore` keeps none (monitors store no signature).
   */
  signatures?: "check" | "claim" | "ignore" | undefined;
  /** The IP data that annotates traceroute and mtr hops with their networks (hop-networks.ts). */
  hopNetworks?: HopNetworks | undefined;
  /**
   * Hears the probe's result so far (hops annotated as in the result) each time the agent sends it, before
   * the result: the job then asks for progress. Nothing after the result; an agent that sends no progress
   * (older, or a probe that makes none) is answered as usual.
   */
  onProgress?: ((detail: Record<string, unknown>) => void) | undefined;
}

/** Sends one job to one node and turns whatever happens into a NodeResult; never rejects, never outlives the deadline. */
export async function dispatchToNode(input: DispatchInput): Promise<NodeResult> {
  const { node, position } = input;
  const failed = (code: string, message: string): NodeResult => ({
    node_id: node.id,
    node_name: node.name,
    position,
    success: false,
    latency_ms: null,
    error: { code, message },
    detail: null,
    duration_ms: null,
  });
  if (!node.online) return failed("node_offline", `node ${node.id} is offline`);
  const held = input.quarantine?.check(input.spec, node.id);
  if (held) return failed("probe_quarantined", held);

  const message: JobMessage = {
    v: PROTOCOL_VERSION,
    job_id: input.jobId,
    budget_ms: jobBudgetMs(input.timeoutMs),
    spec: input.spec,
    ...(input.onProgress ? { progress: true } : {}),
  };
  input.directory.reserve(node.id);
  let raw: unknown;
  let answered = false;
  const progress = input.onProgress && progressReader(input, () => answered);
  try {
    raw = await withDeadline(
      input.transport.request(node.id, message, input.timeoutMs, progress),
      input.timeoutMs,
    );
  } catch (err) {
    const code = err instanceof TransportError ? err.code : "transport_error";
    if (code === "no_responders") {
      // Nobody serves its job subject: the agent is gone (NATS drops a closed connection's subscriptions
      // at once). The directory learns it now, not when the heartbeats have gone stale.
      input.directory.markOffline(node.id);
      return failed("node_offline", `node ${node.id} is offline`);
    }
    // A timeout does not mark the node offline: a slow node is not a gone one. It may be busy, its target
    // slow, a reply late or this controller's event loop stalled, and one slow probe must not take a
    // healthy node out of every caller's selection until its next heartbeat (which would then flap it
    // back). Fresh heartbeats stay the authority; a node that dies without closing its connection goes
    // offline when they stop (VANTAGE_NODE_OFFLINE_AFTER_MS).
    if (code === "timeout")
      return failed("node_timeout", `node ${node.id} did not answer within ${input.timeoutMs} ms`);
    // The agent's process ended with the job in flight: answered now, not at the deadline. A crash it
    // reported (or a fatal signal) makes this probe a suspect: held back from every node, monitors paused.
    if (code === "agent_exited") return failed("node_error", (err as TransportError).message);
    // This controller's NATS connection dropped with the job out (the transport answers such jobs when
    // it drops, not at their deadline): whether the job ran is unknown, and the node is not to blame.
    if (code === "transport_lost") return failed("transport_lost", (err as TransportError).message);
    if (code === "agent_crashed") {
      input.quarantine?.add(input.spec, node.id, input.jobId);
      return { ...failed("node_error", (err as TransportError).message), agent_crash: true };
    }
    return failed("node_error", `node ${node.id} could not be reached`);
  } finally {
    answered = true;
    input.directory.release(node.id);
  }

  // The version is checked before the shape: another version may well have another shape.
  const v = (raw as { v?: unknown } | null)?.v;
  if (typeof v === "number" && v !== PROTOCOL_VERSION)
    return failed("incompatible_version", `node ${node.id} speaks protocol version ${v}`);
  const parsed = jobReplySchema.safeParse(raw);
  if (!parsed.success) return failed("node_error", `node ${node.id} sent an invalid reply`);
  const reply = parsed.data;
  if (reply.job_id !== input.jobId) return failed("node_error", `node ${node.id} answered another job`);
  if (reply.status === "refused") {
    const c = reply.error.code;
    if (c === "busy") return failed("node_busy", `node ${node.id} is at its job limit`);
    if (c === "incompatible_version") return failed("incompatible_version", reply.error.message);
    if (c === "shutting_down") {
      // It said so itself: offline at once, as its draining heartbeat will say too.
      input.directory.markOffline(node.id);
      return failed("node_offline", `node ${node.id} is shutting down`);
    }
    return failed("node_error", `node ${node.id} refused the job: ${reply.error.message}`);
  }
  const { outcome } = reply;
  // Checked before the hops get their networks: the agent signed its own outcome, not the annotations.
  const mode = input.signatures ?? "check";
  let signature = reply.signature && mode !== "ignore" ? claimSignature(input, reply) : undefined;
  if (signature && mode === "check" && !signatureHolds(signature)) {
    input.onBadSignature?.(node.id, "signature does not verify");
    signature = undefined;
  }
  return withHopNetworks(
    {
      node_id: node.id,
      node_name: node.name,
      position,
      success: outcome.success,
      latency_ms: outcome.latency_ms,
      error: outcome.error,
      detail: outcome.detail,
      duration_ms: reply.duration_ms,
      ...(signature ? { signature } : {}),
    },
    input.hopNetworks,
  );
}

/**
 * Rebuilds the statement the agent signed (result-signature.ts) from what was sent and answered, under the
 * key the node's heartbeats announce, never the one in the reply alone. Undefined (reported) when the keys
 * differ; whether the signature verifies is `signatureHolds`'s to say.
 */
function claimSignature(
  input: DispatchInput,
  reply: Extract<JobReply, { status: "done" }>,
): ResultSignatureRecord | undefined {
  const given = reply.signature;
  if (!given) return undefined;
  const nodeId = input.node.id;
  const known =
    input.directory.live?.get(nodeId)?.publicKey ??
    input.directory.peek?.()?.find((n) => n.id === nodeId)?.publicKey;
  if (known !== given.key) {
    input.onBadSignature?.(
      nodeId,
      known ? "signed with another key than its heartbeats announce" : "no key known",
    );
    return undefined;
  }
  const statement: ResultStatement = {
    v: 1,
    node_id: nodeId,
    job_id: input.jobId,
    agent_version: reply.agent_version ?? "",
    spec: input.spec,
    started_at: reply.started_at,
    duration_ms: reply.duration_ms,
    outcome: reply.outcome,
  };
  return { key: given.key, sig: given.sig, statement: canonicalJson(statement) };
}

/** Whether a signature record verifies: its statement, signed with its key. */
export function signatureHolds(s: ResultSignatureRecord): boolean {
  return verifyResultSignature(s.key, s.statement, s.sig);
}

/** `signatureHolds` in the thread pool (see verifyResultSignatureAsync). */
export function signatureHoldsAsync(s: ResultSignatureRecord): Promise<boolean> {
  return verifyResultSignatureAsync(s.key, s.statement, s.sig);
}

/**
 * The results of a dispatch with `signatures: "claim"` (or read back from the results log) as they may be
 * stored: each signature that does not verify dropped and reported, its result kept, unsigned. `verdicts`
 * holds the checks already made, by result position; the others are made here.
 */
export function confirmSignatures(
  results: readonly NodeResult[],
  onBad?: (nodeId: string, why: string) => void,
  verdicts?: ReadonlyMap<number, boolean>,
): NodeResult[] {
  return results.map((r) => {
    if (!r.signature || (verdicts?.get(r.position) ?? signatureHolds(r.signature))) return r;
    onBad?.(r.node_id, "signature does not verify");
    const { signature: _dropped, ...unsigned } = r;
    return unsigned;
  });
}

/**
 * The transport's progress handler for one job: a JobProgress for this job, in order (a `seq` not above
 * the last is dropped), its hops annotated with their networks, passed on until the job is answered.
 */
function progressReader(input: DispatchInput, answered: () => boolean): (raw: unknown) => void {
  const onProgress = input.onProgress;
  let last = 0;
  return (raw) => {
    const parsed = jobProgressSchema.safeParse(raw);
    if (!onProgress || !parsed.success || parsed.data.job_id !== input.jobId || parsed.data.seq <= last)
      return;
    last = parsed.data.seq;
    void withHopNetworks({ detail: parsed.data.detail }, input.hopNetworks).then(
      (r) => {
        if (!answered() && r.detail) onProgress(r.detail);
      },
      () => {},
    );
  };
}

/** A second fence behind the transport's own timeout: whatever the transport does, the caller is answered. */
function withDeadline<T>(p: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const fence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TransportError("timeout", "deadline passed")), timeoutMs + 50);
  });
  return Promise.race([p, fence]).finally(() => clearTimeout(timer));
}
