export { type RunningAgent, type StartAgentOptions, startAgent } from "./agent.js";
export { type AgentConfig, type AgentSettings, ConfigError, configSchema, loadConfig } from "./config.js";
export { AGENT_VERSION, buildHeartbeat, detectCapabilities } from "./presence.js";
export { JobRunner, type ProbeFn, type RunnerOptions } from "./runner.js";
