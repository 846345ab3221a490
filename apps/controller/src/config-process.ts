import { z } from "zod";
import { parseListen } from "./config-values.js";
import { bool, secret } from "./config-variable.js";

/** The controller's roles; each runs its own share of the work (see runtime.ts). */
export const roles = ["api", "scheduler", "notifier", "presence"] as const;
export type Role = (typeof roles)[number];

/** HTTP server, process and logging. */
export const server = {
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  VANTAGE_API_FORM: z.enum(["a", "b"]).default("b"),
  VANTAGE_ROLES: z
    .string()
    .default("api,scheduler,notifier,presence")
    .transform((s) => s.split(",").map((r) => r.trim()))
    .pipe(
      z
        .array(z.enum(roles))
        .min(1)
        .transform((list) => [...new Set(list)]),
    ),
  VANTAGE_PUBLIC_URL: z.string().url().optional(),
  VANTAGE_TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p.length > 0),
    ),
  /** The dashboard's build (apps/web/dist of the checkout by default). */
  VANTAGE_WEB_DIR: z.string().min(1).optional(),
  VANTAGE_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  VANTAGE_ACCESS_LOG: bool.default(true),
  VANTAGE_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  VANTAGE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
};

/** Who may read `/metrics`, and where it is served. */
export const metrics = {
  VANTAGE_METRICS_TOKEN: secret(
    z
      .string()
      .min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)")
      .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
      .optional(),
  ),
  VANTAGE_METRICS_LISTEN: z
    .string()
    .transform((s, ctx) => {
      const listen = parseListen(s);
      if (!listen) {
        ctx.addIssue({ code: "custom", message: "must be host:port, e.g. 127.0.0.1:9464 or [::1]:9464" });
        return z.NEVER;
      }
      return listen;
    })
    .optional(),
};

/** PostgreSQL, or the embedded PGlite in the data directory. */
export const database = {
  DATABASE_URL: secret(
    z
      .string()
      .regex(
        /^postgres(ql)?:\/\/\S+$/,
        "must be a postgres:// URL without spaces (percent-encode them in a password: %20)",
      )
      .optional(),
  ),
  VANTAGE_DATA_DIR: z.string().min(1).default("./.vantage"),
  VANTAGE_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  VANTAGE_DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  /** The embedded database's buffer cache in MB (PGLITE_CACHE_MB_DEFAULT; db/connect.ts). */
  VANTAGE_PGLITE_CACHE_MB: z.coerce.number().int().min(16).max(4096).default(32),
};

/** The transport to the agents: NATS, or the in-process one with a local agent. */
export const nats = {
  /** Comma-separated server URLs; one may carry `user:password@` (logged with it masked). */
  NATS_URL: secret(z.string().min(1).optional()),
  NATS_NO_RANDOMIZE: bool.default(false),
  NATS_CREDS_FILE: z.string().min(1).optional(),
  NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  VANTAGE_ALLOW_OPEN_NATS: bool.default(false),
};
