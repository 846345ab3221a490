import type { ChildProcess } from "node:child_process";
import type { RunResult } from "./shell.js";
import type { labAddresses } from "./topology.js";

/**
 * A running lab as its users see it. It lives apart from `lab.ts`, which builds one, so the services that
 * `lab.ts` starts can take a lab without importing the file that imports them.
 */
export interface Lab {
  id: string;
  dir: string;
  lossPercent: number;
  addresses: typeof labAddresses;
  /** Namespace name of a lab node (`c1` → `vl-1a2b3c-c1`). */
  ns(node: string): string;
  clients: string[];
  /** Runs a command inside a node's namespace to completion. */
  exec(
    node: string,
    file: string,
    args: readonly string[],
    opts?: { timeoutMs?: number },
  ): Promise<RunResult>;
  /** Starts a long-running process inside a node's namespace, working directory the repository root. */
  spawn(node: string, file: string, args: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess;
  destroy(): Promise<void>;
}
