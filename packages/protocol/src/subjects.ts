/** NATS subjects, broad to narrow, versioned. A node's identity is its subject: its credentials alone may use it. */
export const PROTOCOL_VERSION = 1;

/** Node ids are subject tokens: lower-case letters, digits and dashes, no dots. */
export const nodeIdPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const subjects = {
  job: (nodeId: string) => `probe.v1.node.${nodeId}.job`,
  heartbeat: (nodeId: string) => `probe.v1.node.${nodeId}.hb`,
  /** Wildcard the controller subscribes to; token 3 is the node id. */
  allHeartbeats: "probe.v1.node.*.hb",
  nodeWildcard: (nodeId: string) => `probe.v1.node.${nodeId}.>`,
} as const;

/**
 * The results write-ahead log (ADR 0012): a JetStream stream of answered Form B tasks, one subject per
 * controller process, and the JetStream API subjects the controllers use on it (nothing else of JetStream).
 */
export const resultsLog = {
  stream: "VANTAGE_RESULTS",
  /** Token 3 is the controller's instance id (`ctl_…`). */
  subject: (controllerId: string) => `vantage.results.v1.${controllerId}`,
  allSubjects: "vantage.results.v1.*",
  api: (verb: "CREATE" | "UPDATE" | "INFO" | "PURGE" | "MSG.GET") => `$JS.API.STREAM.${verb}.VANTAGE_RESULTS`,
  apiVerbs: ["CREATE", "UPDATE", "INFO", "PURGE", "MSG.GET"] as const,
} as const;

/** Extracts the node id from a heartbeat subject, or undefined when the subject is not one. */
export function nodeIdFromSubject(subject: string): string | undefined {
  const parts = subject.split(".");
  if (parts.length !== 5 || parts[0] !== "probe" || parts[1] !== "v1" || parts[2] !== "node")
    return undefined;
  const id = parts[3]!;
  return nodeIdPattern.test(id) ? id : undefined;
}
