import type { AgentSettings } from "@vantage/agent";

/** What the supervisor hands the agent child, as JSON in its first argument. */
export interface ChildArgs {
  settings: AgentSettings;
  logLevel: string;
  /**
   * Where the agent's own signing key is kept (made on first start, mode 0600; docs/verify.md); without it
   * (a memory:// data dir) the child signs with a key of its own lifetime.
   */
  signingKeyFile?: string | undefined;
  /**
   * Tests only: a module whose `probe` export replaces `runProbe` (e.g. one that throws from a callback
   * for one target, to crash the child on purpose).
   */
  probeModule?: string | undefined;
}
