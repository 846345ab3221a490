import { accessSync, constants } from "node:fs";
import { nodeIdPattern } from "@vantage/protocol";
import { z } from "zod";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const readableFile = z
  .string()
  .min(1)
  .refine(
    (path) => {
      try {
        accessSync(path, constants.R_OK);
        return true;
      } catch {
        return false;
      }
    },
    { message: "file does not exist or is not readable" },
  );

/** Every environment variable the agent reads, with its default. docs/operations.md lists them. */
export const configSchema = z
  .object({
    VANTAGE_NODE_ID: z.string().regex(nodeIdPattern, "must be lower-case letters, digits and dashes (1-63)"),
    VANTAGE_NODE_NAME: z.string().min(1).max(100).optional(),
    VANTAGE_NODE_COUNTRY: z
      .string()
      .regex(/^[A-Za-z]{2}$/, "must be a two-letter country code (ISO 3166-1 alpha-2)")
      .transform((c) => c.toUpperCase()),
    VANTAGE_NODE_REGION: z.string().min(1).max(64),
    VANTAGE_NODE_PROVIDER: z.string().min(1).max(64),
    NATS_URL: z
      .string()
      .regex(
        /^((nats|tls):\/\/)?[^\s,]+(\s*,\s*((nats|tls):\/\/)?[^\s,]+)*$/,
        "must be a nats:// or tls:// URL, or a comma-separated list of them",
      ),
    /** Try NATS_URL's servers in the order given (the first preferred) instead of shuffled. */
    NATS_NO_RANDOMIZE: bool.default(false),
    NATS_NKEY_SEED_FILE: readableFile.optional(),
    NATS_CREDS_FILE: readableFile.optional(),
    NATS_TLS_CA_FILE: readableFile.optional(),
    VANTAGE_AGENT_CONCURRENCY: z.coerce.number().int().min(1).max(4096).default(64),
    VANTAGE_HEARTBEAT_MS: z.coerce.number().int().min(500).max(60_000).default(5000),
    VANTAGE_ALLOW_PRIVATE_TARGETS: bool.default(false),
    /**
     * Serve even when the NATS server enforces no permissions (any client could then receive this node's
     * jobs or speak as it): development only. Without it the agent exits 2 on such a server.
     */
    VANTAGE_ALLOW_OPEN_NATS: bool.default(false),
    VANTAGE_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /**
     * libuv's thread pool (name lookups, fs). Read by libuv itself before this code runs, so it is only
     * checked here: libuv would turn a non-number into 1 thread. Set by the `threadpool.cjs` preload.
     */
    UV_THREADPOOL_SIZE: z.coerce.number().int().min(1).max(1024).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.NATS_NKEY_SEED_FILE && c.NATS_CREDS_FILE) {
      ctx.addIssue({
        code: "custom",
        path: ["NATS_CREDS_FILE"],
        message: "set either NATS_NKEY_SEED_FILE or NATS_CREDS_FILE, not both",
      });
    }
  })
  .transform((c) => ({ ...c, VANTAGE_NODE_NAME: c.VANTAGE_NODE_NAME ?? c.VANTAGE_NODE_ID }));

export type AgentConfig = z.infer<typeof configSchema>;

/**
 * What one agent needs to run, whatever carries its jobs: the agent process passes its whole config, the
 * controller's embedded mode builds one for its local agent.
 */
export type AgentSettings = Pick<
  AgentConfig,
  | "VANTAGE_NODE_ID"
  | "VANTAGE_NODE_NAME"
  | "VANTAGE_NODE_COUNTRY"
  | "VANTAGE_NODE_REGION"
  | "VANTAGE_NODE_PROVIDER"
  | "VANTAGE_AGENT_CONCURRENCY"
  | "VANTAGE_HEARTBEAT_MS"
  | "VANTAGE_ALLOW_PRIVATE_TARGETS"
>;

export class ConfigError extends Error {}

/** Parses the environment; the first bad variable becomes one clear line naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AgentConfig {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(configSchema.in.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    const shown = name in cleaned ? `=${JSON.stringify(cleaned[name])}` : " (unset)";
    throw new ConfigError(`invalid configuration: ${name}${shown}: ${issue.message}`);
  }
  return parsed.data;
}
