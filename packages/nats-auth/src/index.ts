export { type AgentEnvInput, renderAgentEnv } from "./agent-env.js";
export {
  AGENT_RESPONSE_LIMIT,
  agentPermissions,
  agentUser,
  assertNodeId,
  type Credentials,
  controllerPermissions,
  controllerUser,
  createAgentCredentials,
  createControllerCredentials,
  DEFAULT_CONTROLLER_INBOX_PREFIX,
  type NatsPermissions,
  type NatsUser,
} from "./credentials.js";
export {
  agentKey,
  parseUsers,
  removeUser,
  renderUsers,
  type UserKey,
  type UsersEntry,
  upsertUser,
} from "./users-file.js";
