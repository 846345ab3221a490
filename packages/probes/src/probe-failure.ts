import { describeNetError, errnoName, type NetErrorContext } from "./net-error.js";
import type { ProbeErrorCode } from "./probe-results.js";

/**
 * Thrown inside probes to end a run with a stable error code; `runProbe` turns it into a failed outcome.
 * `detail` carries what the probe had measured so far (e.g. the resolved IP before a refused connect).
 */
export class ProbeFailure<D = unknown> extends Error {
  constructor(
    readonly code: ProbeErrorCode,
    message: string,
    readonly detail: D | null = null,
  ) {
    super(message);
    this.name = "ProbeFailure";
  }
}

/** The errnos whose Node message is kept as it is; net-error.ts words the others. */
const errnoCodes: Record<string, ProbeErrorCode> = {
  ECONNREFUSED: "connection_refused",
  ETIMEDOUT: "timeout",
  ENOTFOUND: "dns_resolution_failed",
  EAI_AGAIN: "dns_resolution_failed",
  EAI_FAIL: "dns_resolution_failed",
  EAI_NODATA: "dns_resolution_failed",
  EAI_NONAME: "dns_resolution_failed",
};

/** Maps a Node system error (errno code) to a probe error code; anything unknown is `probe_error`. */
export function codeFromError(error: unknown): ProbeErrorCode {
  if (error instanceof ProbeFailure) return error.code;
  const described = describeNetError(error);
  if (described) return described.code;
  const code = errnoName(error);
  if (code !== null) {
    const mapped = errnoCodes[code];
    if (mapped) return mapped;
    if (code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL")) return "tls_error";
  }
  return "probe_error";
}

/**
 * A ProbeFailure from any error, keeping an existing one as it is. A socket error whose errno says what
 * happened gets a sentence naming `context.target` (see net-error.ts); any other keeps its own message.
 */
export function toProbeFailure<D>(
  error: unknown,
  detail: D | null = null,
  context: NetErrorContext = {},
): ProbeFailure<D> {
  if (error instanceof ProbeFailure) return error as ProbeFailure<D>;
  const described = describeNetError(error, context);
  if (described) return new ProbeFailure(described.code, described.message, detail);
  const message = error instanceof Error ? error.message : String(error);
  return new ProbeFailure(codeFromError(error), message, detail);
}
