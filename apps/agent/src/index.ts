export { type RunningAgent, type StartAgentOptions, startAgent } from "./agent.js";
export { type AgentConfig, type AgentSettings, ConfigError, configSchema, loadConfig } from "./config.js";
export { CRASH_EXIT_CODE, type CrashGuardOptions, installCrashGuard } from "./crash-guard.js";
export { ExitLog } from "./exit-log.js";
export { AGENT_VERSION, buildHeartbeat, detectCapabilities } from "./presence.js";
export { JobRunner, type ProbeFn, type RunnerOptions } from "./runner.js";
export { loadOrCreateSigningKey } from "./signing-key.js";
