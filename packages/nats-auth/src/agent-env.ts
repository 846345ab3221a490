import { assertNodeId } from "./credentials.js";

export interface AgentEnvInput {
  nodeId: string;
  name?: string | undefined;
  country?: string | undefined;
  region?: string | undefined;
  provider?: string | undefined;
  natsUrl: string;
  /** Where the seed file will be on the agent's host. */
  seedFile: string;
}

/** The agent's environment file (systemd `EnvironmentFile=` syntax); unknown values are left to fill in. */
/**
 * A value as both `sh` (`set -a; . agent.env`) and systemd's `EnvironmentFile=` read it: bare when it is
 * plain, else in double quotes (the values may not hold quotes, backslashes, `$` or backticks).
 */
function q(value: string): string {
  return /^[A-Za-z0-9._:/@+,=-]*$/.test(value) ? value : `"${value}"`;
}

export function renderAgentEnv(input: AgentEnvInput): string {
  assertNodeId(input.nodeId);
  const line = (name: string, value: string | undefined, hint: string) =>
    value === undefined || value === ""
      ? `# ${name}=   (required: ${hint})\n${name}=`
      : `${name}=${q(value)}`;
  if (input.country !== undefined && !/^[A-Za-z]{2}$/.test(input.country)) {
    throw new Error(`--country must be an ISO 3166-1 alpha-2 code, got ${JSON.stringify(input.country)}`);
  }
  for (const [flag, v] of [
    ["name", input.name],
    ["region", input.region],
    ["provider", input.provider],
    ["nats-url", input.natsUrl],
    ["seed-path", input.seedFile],
  ] as const) {
    if (v !== undefined && /[\n\r"'\\$`]/.test(v))
      throw new Error(`--${flag} must not contain quotes or newlines`);
  }
  return [
    `VANTAGE_NODE_ID=${input.nodeId}`,
    `VANTAGE_NODE_NAME=${q(input.name ?? input.nodeId)}`,
    line("VANTAGE_NODE_COUNTRY", input.country?.toUpperCase(), "two-letter country code, e.g. DE"),
    line("VANTAGE_NODE_REGION", input.region, "e.g. eu-central"),
    line("VANTAGE_NODE_PROVIDER", input.provider, "e.g. hetzner"),
    `NATS_URL=${q(input.natsUrl)}`,
    `NATS_NKEY_SEED_FILE=${q(input.seedFile)}`,
    "",
  ].join("\n");
}
