import { createUser } from "@nats-io/nkeys";
import { nodeIdPattern, resultsLog, subjects } from "@vantage/protocol";

/** A nats-server `authorization.users[].permissions` block (the subset Vantage uses). */
export interface NatsPermissions {
  publish?: { allow?: string[]; deny?: string[] };
  subscribe?: { allow?: string[]; deny?: string[] };
  allow_responses?: boolean | { max: number; expires: string };
}

/** One nkey user of the server configuration: the server stores only the public key. */
export interface NatsUser {
  /** Public nkey (`U…`). */
  nkey: string;
  permissions?: NatsPermissions;
}

export interface Credentials {
  /** The nkey seed (`SU…`): the secret, kept by its owner only, in a file of mode 0600. */
  seed: string;
  /** The public key (`U…`) the server configuration names. */
  publicKey: string;
  user: NatsUser;
}

/** Replies an agent may send: enough for streaming answers, and only to requests it received. */
export const AGENT_RESPONSE_LIMIT = { max: 1000, expires: "2m" } as const;

export const DEFAULT_CONTROLLER_INBOX_PREFIX = "_INBOX";

export function assertNodeId(nodeId: string): void {
  if (!nodeIdPattern.test(nodeId)) {
    throw new Error(
      `invalid node id ${JSON.stringify(nodeId)}: use 1-63 lower-case letters, digits and dashes, ` +
        "starting and ending with a letter or digit",
    );
  }
}

/**
 * An agent may receive its own jobs, publish its own heartbeat, and answer the requests it received.
 * Nothing else: it cannot see another node's jobs, speak as another node, or make requests itself.
 */
export function agentPermissions(nodeId: string): NatsPermissions {
  assertNodeId(nodeId);
  return {
    publish: { allow: [subjects.heartbeat(nodeId)] },
    subscribe: { allow: [subjects.job(nodeId)] },
    allow_responses: { ...AGENT_RESPONSE_LIMIT },
  };
}

/**
 * The controller sends jobs to any node, hears every heartbeat, and receives replies on its inbox. It also
 * keeps the results write-ahead log (ADR 0012): publishes to the stream's subjects and uses the JetStream
 * API on that one stream only (create or update it, read, purge), the answers coming to its inbox.
 */
export function controllerPermissions(opts: { inboxPrefix?: string | undefined } = {}): NatsPermissions {
  const prefix = opts.inboxPrefix ?? DEFAULT_CONTROLLER_INBOX_PREFIX;
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) {
    throw new Error(`invalid inbox prefix ${JSON.stringify(prefix)}`);
  }
  return {
    publish: {
      allow: [
        subjects.job("*"),
        resultsLog.allSubjects,
        ...resultsLog.apiVerbs.map((v) => resultsLog.api(v)),
      ],
    },
    subscribe: { allow: [subjects.allHeartbeats, `${prefix}.>`] },
  };
}

export function agentUser(nodeId: string, publicKey: string): NatsUser {
  return { nkey: assertUserKey(publicKey), permissions: agentPermissions(nodeId) };
}

export function controllerUser(publicKey: string, opts: { inboxPrefix?: string | undefined } = {}): NatsUser {
  return { nkey: assertUserKey(publicKey), permissions: controllerPermissions(opts) };
}

/** A fresh nkey pair for agent `nodeId` and its server entry. */
export function createAgentCredentials(nodeId: string): Credentials {
  assertNodeId(nodeId);
  const { seed, publicKey } = newUserKey();
  return { seed, publicKey, user: agentUser(nodeId, publicKey) };
}

/** A fresh nkey pair for the controller (all controller instances may share it) and its server entry. */
export function createControllerCredentials(opts: { inboxPrefix?: string | undefined } = {}): Credentials {
  const { seed, publicKey } = newUserKey();
  return { seed, publicKey, user: controllerUser(publicKey, opts) };
}

function newUserKey(): { seed: string; publicKey: string } {
  const kp = createUser();
  const seed = new TextDecoder().decode(kp.getSeed());
  const publicKey = kp.getPublicKey();
  kp.clear();
  return { seed, publicKey };
}

function assertUserKey(publicKey: string): string {
  if (!/^U[A-Z2-7]{55}$/.test(publicKey)) {
    throw new Error(`not a public user nkey: ${JSON.stringify(publicKey)}`);
  }
  return publicKey;
}
