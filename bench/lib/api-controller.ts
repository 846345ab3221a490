import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@vantage/testing";
import type { Kysely } from "kysely";
import { loadConfig } from "../../apps/controller/src/config.js";
import type { Database } from "../../apps/controller/src/db/schema.js";
import { createLogger } from "../../apps/controller/src/logger.js";
import { type Runtime, startRuntime } from "../../apps/controller/src/runtime.js";

export interface ApiController {
  runtime: Runtime;
  url: string;
  db: Kysely<Database>;
  /** The login JWT of the one account registered, and its id. */
  token: string;
  owner: string;
  stop(): Promise<void>;
}

/**
 * One controller (api role) on a fresh PostgreSQL database, with one account registered through the API
 * (`<name>-bench@example.com`): the set-up of the benches that read an account's data over HTTP.
 */
export async function startApiController(
  name: string,
  env: Record<string, string> = {},
): Promise<ApiController> {
  const tdb = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), `vantage-bench-${name}-`));
  const runtime = await startRuntime(
    loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: tdb.url,
      VANTAGE_DATA_DIR: dataDir,
      VANTAGE_JWT_SECRET: `${name}-bench-jwt-secret-0123456789abcdef`,
      VANTAGE_ROLES: "api",
      VANTAGE_LOG_LEVEL: "warn",
      VANTAGE_ACCESS_LOG: "false",
      ...env,
    }),
    createLogger("warn"),
  );
  const url = runtime.url!;
  const db = runtime.db.kysely;
  const reg = await fetch(`${url}/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${name}-bench@example.com`, password: "correct horse battery" }),
  });
  const token = ((await reg.json()) as { data: { access_token: string } }).data.access_token;
  const owner = (await db.selectFrom("users").select("id").executeTakeFirstOrThrow()).id;
  return {
    runtime,
    url,
    db,
    token,
    owner,
    async stop() {
      await runtime.stop();
      await tdb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
