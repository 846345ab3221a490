// The probe the containment tests give the embedded agent child (ChildArgs.probeModule): the real probes,
// except a TCP probe of port 9 (discard), which throws from a timer 50 ms in, as a probe whose socket code
// threw asynchronously once did, ending the whole process.
import type { ProbeFn } from "@vantage/agent";
import { runProbe } from "@vantage/probes";

export const CRASH_PORT = 9;

export const probe: ProbeFn = (spec, ctx) => {
  if (spec.type === "tcp" && spec.params.port === CRASH_PORT) {
    setTimeout(() => {
      throw new Error("probe code threw from a timer (containment test)");
    }, 50);
    return new Promise(() => {});
  }
  return runProbe(spec, ctx);
};
