import { accessSync, constants } from "node:fs";
import { nodeIdPattern } from "@vantage/protocol";
import * as z from "zod";

const bool = z.pipe(
  z.enum(["true", "false", "1", "0", "yes", "no"]),
  z.transform((v) => v === "true" || v === "1" || v === "yes"),
);

const readableFile = z.string().check(
  z.minLength(1),
  z.refine(
    (path) => {
      try {
        accessSync(path, constants.R_OK);
        return true;
      } catch {
        return false;
      }
    },
    { message: "file does not exist or is not readable" },
  ),
);

/** A number given as text, a safe integer from `min` to `max`. */
const envInteger = (min: number, max: number) => z.coerce.number().check(z.int(), z.gte(min), z.lte(max));
/** A string of `min`–`max` characters. */
const text = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));

/** Every environment variable the agent reads, with its default. docs/operations.md lists them. */
export const configSchema = z.pipe(
  z
    .object({
      VANTAGE_NODE_ID: z
        .string()
        .check(z.regex(nodeIdPattern, "must be lower-case letters, digits and dashes (1-63)")),
      VANTAGE_NODE_NAME: z.optional(text(1, 100)),
      VANTAGE_NODE_COUNTRY: z.pipe(
        z.string().check(z.regex(/^[A-Za-z]{2}$/, "must be a two-letter country code (ISO 3166-1 alpha-2)")),
        z.transform((c) => c.toUpperCase()),
      ),
      VANTAGE_NODE_REGION: text(1, 64),
      VANTAGE_NODE_PROVIDER: text(1, 64),
      /** The node's network, `AS13335` or `13335`, for `AS…` location selectors. */
      VANTAGE_NODE_ASN: z.optional(
        z.pipe(
          z.string().check(z.regex(/^(?:AS)?[1-9]\d{0,9}$/i, "must be an AS number, e.g. AS13335")),
          z.transform((v) => Number(v.replace(/^AS/i, ""))),
        ),
      ),
      /** Comma-separated labels for location selectors (lower case, digits, dashes; at most 16). */
      VANTAGE_NODE_TAGS: z.optional(
        z.pipe(
          z
            .string()
            .check(
              z.regex(
                /^\s*[a-z0-9][a-z0-9-]{0,31}(\s*,\s*[a-z0-9][a-z0-9-]{0,31}){0,15}\s*$/,
                "must be up to 16 comma-separated tags of lower-case letters, digits and dashes (1-32)",
              ),
            ),
          z.transform((v) => [...new Set(v.split(",").map((t) => t.trim()))]),
        ),
      ),
      NATS_URL: z
        .string()
        .check(
          z.regex(
            /^((nats|tls):\/\/)?[^\s,]+(\s*,\s*((nats|tls):\/\/)?[^\s,]+)*$/,
            "must be a nats:// or tls:// URL, or a comma-separated list of them",
          ),
        ),
      /** Try NATS_URL's servers in the order given (the first preferred) instead of shuffled. */
      NATS_NO_RANDOMIZE: z._default(bool, false),
      NATS_NKEY_SEED_FILE: z.optional(readableFile),
      NATS_CREDS_FILE: z.optional(readableFile),
      NATS_TLS_CA_FILE: z.optional(readableFile),
      VANTAGE_AGENT_CONCURRENCY: z._default(envInteger(1, 4096), 64),
      VANTAGE_HEARTBEAT_MS: z._default(envInteger(500, 60_000), 5000),
      VANTAGE_ALLOW_PRIVATE_TARGETS: z._default(bool, false),
      /**
       * Serve even when the NATS server enforces no permissions (any client could then receive this node's
       * jobs or speak as it): development only. Without it the agent exits 2 on such a server.
       */
      VANTAGE_ALLOW_OPEN_NATS: z._default(bool, false),
      VANTAGE_LOG_LEVEL: z._default(
        z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
        "info",
      ),
      /**
       * libuv's thread pool (name lookups, fs). Read by libuv itself before this code runs, so it is only
       * checked here: libuv would turn a non-number into 1 thread. Set by the `threadpool.cjs` preload.
       */
      UV_THREADPOOL_SIZE: z.optional(envInteger(1, 1024)),
    })
    .check(
      z.superRefine((c, ctx) => {
        if (c.NATS_NKEY_SEED_FILE && c.NATS_CREDS_FILE) {
          ctx.addIssue({
            code: "custom",
            path: ["NATS_CREDS_FILE"],
            message: "set either NATS_NKEY_SEED_FILE or NATS_CREDS_FILE, not both",
          });
        }
      }),
    ),
  z.transform((c) => ({ ...c, VANTAGE_NODE_NAME: c.VANTAGE_NODE_NAME ?? c.VANTAGE_NODE_ID })),
);

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
  | "VANTAGE_NODE_ASN"
  | "VANTAGE_NODE_TAGS"
  | "VANTAGE_AGENT_CONCURRENCY"
  | "VANTAGE_HEARTBEAT_MS"
  | "VANTAGE_ALLOW_PRIVATE_TARGETS"
>;

export class ConfigError extends Error {}

/** Parses the environment; the first bad variable becomes one clear line naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AgentConfig {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(configSchema.def.in.shape)) {
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
