import type { ProbeJobSpec } from "@vantage/probes";
import type { ProbeCaller } from "./quota.js";
import type { LocationEntry } from "./select-locations.js";

/** A probe request in the internal model; the routes build it from either form. */
export interface ProbeRequest {
  spec: ProbeJobSpec;
  /** The URL, host or domain as the caller wrote it. */
  target: string;
  nodeIds?: readonly string[] | undefined;
  /** Nodes by place (`locations`, node-choice.ts), instead of ids. */
  locations?: { entries: readonly LocationEntry[]; field: string } | undefined;
  /** Run on the nodes of this earlier task (one the caller may read). */
  reuse?: string | undefined;
  /** Body paths for error details, in the caller's form. */
  paths: { target: string; server: string; nodes: string };
  /** Form A: where the finished task is announced (callback.ts). */
  callbackUrl?: string | undefined;
  /** Whose quota pays, and who owns the task (accounts only). */
  caller: ProbeCaller;
}

/** A probe request as either form's body maps to it; the route adds the caller. */
export type ProbeInput = Omit<ProbeRequest, "caller">;
