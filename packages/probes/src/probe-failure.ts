import type { ProbeErrorCode } from "./types.js";

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

const errnoCodes: Record<string, ProbeErrorCode> = {
  ECONNREFUSED: "connection_refused",
  EHOSTUNREACH: "host_unreachable",
  EHOSTDOWN: "host_unreachable",
  ENETUNREACH: "network_unreachable",
  ENETDOWN: "network_unreachable",
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
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    const mapped = errnoCodes[code];
    if (mapped) return mapped;
    if (code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL")) return "tls_error";
  }
  return "probe_error";
}

/** A ProbeFailure from any error, keeping an existing one as it is. */
export function toProbeFailure<D>(error: unknown, detail: D | null = null): ProbeFailure<D> {
  if (error instanceof ProbeFailure) return error as ProbeFailure<D>;
  const message = error instanceof Error ? error.message : String(error);
  return new ProbeFailure(codeFromError(error), message, detail);
}
