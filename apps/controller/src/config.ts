import { z } from "zod";
import { accounts, billing, limits, mail } from "./config-accounts.js";
import { alerts, lookups, monitors, probes, reputation } from "./config-diagnostics.js";
import { database, metrics, nats, server } from "./config-process.js";
import { secretSchemas } from "./config-variable.js";

/**
 * The variables by section, in the README's order: the README's configuration table has one `### <title>`
 * part per section, and config.test.ts checks each variable is documented in its own section's part.
 */
export const configSections = [
  { title: "Server", variables: server },
  { title: "Metrics", variables: metrics },
  { title: "Database", variables: database },
  { title: "NATS", variables: nats },
  { title: "Probes and nodes", variables: probes },
  { title: "Lookups", variables: lookups },
  { title: "Reputation", variables: reputation },
  { title: "Monitors", variables: monitors },
  { title: "Alerts", variables: alerts },
  { title: "Accounts and secrets", variables: accounts },
  { title: "Mail", variables: mail },
  { title: "Limits", variables: limits },
  { title: "Billing", variables: billing },
] as const;

/** Every environment variable the controller reads, with its default (see configSections). */
export const configSchema = z.object({
  ...server,
  ...metrics,
  ...database,
  ...nats,
  ...probes,
  ...lookups,
  ...reputation,
  ...monitors,
  ...alerts,
  ...accounts,
  ...mail,
  ...limits,
  ...billing,
});

export type Config = z.infer<typeof configSchema>;
export { type MeteredFamily, meteredFamilies, type ReputationSource } from "./config-values.js";

/** Whether the variable is marked `secret()`: its value must never appear in a message or a log. */
export function isSecret(name: string): boolean {
  const schema = (configSchema.shape as Record<string, z.ZodType>)[name];
  return schema !== undefined && secretSchemas.has(schema);
}

export class ConfigError extends Error {}

/** Parses the environment; the first bad variable becomes one clear line naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    const value = cleaned[name] ?? "";
    if (!isSecret(name)) {
      throw new ConfigError(`invalid configuration: ${name}=${JSON.stringify(value)}: ${issue.message}`);
    }
    // A secret's checks never quote it; should one ever do, the value is cut out of its words too.
    const message = value.length >= 4 ? issue.message.replaceAll(value, "…") : issue.message;
    throw new ConfigError(
      `invalid configuration: ${name}=(${value.length} characters, not shown): ${message}`,
    );
  }
  return parsed.data;
}
