import * as z from "zod";
import { dnsProbe } from "./dns.js";
import { httpProbe } from "./http.js";
import { mtrProbe } from "./mtr.js";
import { pingProbe } from "./ping.js";
import { toProbeFailure } from "./probe-failure.js";
import type { ProbeJobSpec } from "./probe-params.js";
import { tcpProbe } from "./tcp.js";
import { tracerouteProbe } from "./traceroute.js";
import type { Probe, ProbeContext, ProbeOutcome, ProbeType } from "./types.js";

/** Every probe type, checked exhaustive by the compiler: a new type fails to build until it is listed. */
export const probes: { [T in ProbeType]: Probe<T> } = {
  http: httpProbe,
  ping: pingProbe,
  dns: dnsProbe,
  tcp: tcpProbe,
  traceroute: tracerouteProbe,
  mtr: mtrProbe,
};

/**
 * Runs one job. Never rejects: params are re-validated (defaults applied) and any failure, expected or not,
 * becomes `{ success: false, error: { code, message } }`.
 */
export async function runProbe(spec: ProbeJobSpec, ctx: ProbeContext): Promise<ProbeOutcome> {
  try {
    const probe = probes[spec.type] as Probe<ProbeType> | undefined;
    if (!probe) return failed("probe_error", `unknown probe type ${String(spec.type)}`);
    const parsed = z.safeParse(probe.paramsSchema, spec.params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return failed(
        "invalid_target",
        `invalid params: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim(),
      );
    }
    const run = probe.run as (params: unknown, ctx: ProbeContext) => Promise<ProbeOutcome>;
    return await run(parsed.data, ctx);
  } catch (error) {
    const failure = toProbeFailure(error);
    return failed(failure.code, failure.message);
  }
}

function failed(code: string, message: string): ProbeOutcome {
  return { success: false, latency_ms: null, error: { code, message }, detail: null };
}
