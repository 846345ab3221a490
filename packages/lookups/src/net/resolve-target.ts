import { ProbeFailure, type ResolvedTarget, resolveAndCheck } from "@vantage/probes/target-guard";
import { type LookupContext, LookupError } from "../types.js";

/** How a lookup names the server it resolves, in the errors a failure becomes. */
export interface TargetNames {
  /** Named in `upstream_error` messages: a URL, `WHOIS server host:43`, a domain. */
  subject: string;
  /** The error when the time runs out (or the caller goes) while the name resolves. */
  timeout: () => LookupError;
  /** Put before the guard's own message on a refusal. */
  refusedPrefix?: string;
  /** When the host is the caller's input: a malformed one is `invalid_input` at this path. */
  inputPath?: string;
}

/**
 * Resolves `host` once through the target guard (a literal as it is) and checks the address every
 * connection will then be pinned to: the one way the lookups reach a remote. Rejects with LookupError
 * only: `target_not_allowed`, the `timeout` error, `invalid_input` (with `inputPath`), `upstream_error`.
 */
export async function resolveTarget(
  host: string,
  ctx: Pick<LookupContext, "allowPrivate" | "lookup">,
  signal: AbortSignal,
  names: TargetNames,
): Promise<ResolvedTarget> {
  try {
    return await resolveAndCheck(host, { allowPrivate: ctx.allowPrivate, signal, lookup: ctx.lookup });
  } catch (error) {
    if (!(error instanceof ProbeFailure)) throw error;
    if (error.code === "target_not_allowed") {
      throw new LookupError("target_not_allowed", `${names.refusedPrefix ?? ""}${error.message}`);
    }
    if (error.code === "timeout" || signal.aborted) throw names.timeout();
    if (error.code === "invalid_target" && names.inputPath !== undefined) {
      throw new LookupError("invalid_input", error.message, [
        { path: names.inputPath, message: error.message },
      ]);
    }
    throw new LookupError("upstream_error", `${names.subject}: ${error.message}`);
  }
}
