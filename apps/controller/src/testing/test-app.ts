import { appendFileSync } from "node:fs";
import type { LookupContext } from "@vantage/lookups";
import { createTestDatabase } from "@vantage/testing";
import { InProcessBus, type ResultsLog } from "@vantage/transport";
import { type Logger, pino } from "pino";
import { type App, createApp } from "../app.js";
import { type Config, loadConfig } from "../config.js";
import { connectDb, type Db, migrate } from "../db/connect.js";
import { newInstanceId } from "../db/lease.js";
import { HttpMetrics } from "../http/metrics.js";
import type { ApiForm } from "../http/security.js";
import type { Presence } from "../modules/nodes/index.js";
import { contractCheck } from "./contract-check.js";
import { migratedPgTemplate } from "./pg-template.js";
import { lendPgliteDb } from "./pglite-pool.js";
import { planLimitsEnv } from "./plan-limits.js";

export type DbKind = "pglite" | "postgres";
/** The API form a test runs in: the deployment's `VANTAGE_API_FORM`. */
export type Form = ApiForm;

/** Every test that touches the database runs against both. */
export const dbKinds: readonly DbKind[] = ["pglite", "postgres"];
export const forms: readonly Form[] = ["a", "b"];

export interface TestDb {
  kind: DbKind;
  db: Db;
  close(): Promise<void>;
}

/** A migrated database: in-memory PGlite, or a fresh database (a migrated template's copy) on the test PostgreSQL server. */
export async function openTestDb(kind: DbKind): Promise<TestDb> {
  if (kind === "pglite") {
    const { db, close } = await lendPgliteDb();
    await migrate(db);
    return { kind, db, close };
  }
  const tdb = await createTestDatabase({ template: await migratedPgTemplate() });
  const db = await connectDb({ databaseUrl: tdb.url, dataDir: "unused", maxConnections: 5 });
  await migrate(db);
  return {
    kind,
    db,
    async close() {
      await db.close();
      await tdb.drop();
    },
  };
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
  text: string;
}

export interface TestApp extends App {
  config: Config;
  db: Db;
  bus: InProcessBus;
  /** The presence role over the in-process bus: agents served on `bus.agent()` register by heartbeat. */
  presence: Presence;
  /** Sends a request through `app.request`; `body` objects are sent as JSON. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse>;
}

export function testConfig(form: Form, env: Record<string, string> = {}): Config {
  return loadConfig({
    VANTAGE_API_FORM: form,
    VANTAGE_ACCESS_LOG: "false",
    VANTAGE_LOG_LEVEL: "silent",
    VANTAGE_DATA_DIR: "memory://",
    VANTAGE_JWT_SECRET: "test-jwt-secret-0123456789abcdef0123456789",
    // A runtime built from this config (api role) listens on a free port, never on the default 8080.
    PORT: "0",
    // Every test app shares 127.0.0.1: no per-window limit; limit tests set theirs with planLimitsEnv.
    VANTAGE_PLAN_LIMITS: planLimitsEnv(),
    // Likewise for registrations: registration-limits.test.ts restores the defaults.
    VANTAGE_REGISTER_LIMIT_IP: "0",
    VANTAGE_REGISTER_LIMIT_EMAIL: "0",
    // And for refused requests: fuzz and route tests send hundreds; refused-limit tests set their own.
    VANTAGE_REFUSED_LIMIT_IP: "0",
    // No test asks the machine's resolver: the discard port of loopback, unless a test names its own.
    VANTAGE_DNS_RESOLVER: "127.0.0.1:9",
    // Reputation checks ask no DNSBL unless a test names its own fixture.
    VANTAGE_DNSBL_ZONES: "none",
    VANTAGE_LOOKUP_TIMEOUT_MS: "3000",
    ...env,
  });
}

export { planLimitsEnv };

export interface TestAppOptions {
  /**
   * Starts the presence role (the default). Without it the app follows heartbeats as an api-only controller
   * does (the in-memory directory, writing no `nodes` row): pair it with a presence app on the same `bus`.
   */
  presence?: boolean;
  /** The in-process bus to join (another test app's), instead of a new one. */
  bus?: InProcessBus;
  /**
   * Resolves the names lookups connect to. By default every name is refused (ENOTFOUND) at once, so no
   * test's made-up name ever reaches the machine's resolver; tests map their names to 127.0.0.1 here.
   */
  hostLookup?: LookupContext["lookup"];
  /**
   * bcrypt cost of the app's password hashes: TEST_BCRYPT_COST unless given (`null`: the deployments'
   * default, 10). Registrations and logins everywhere in the suite test limits, scopes and flows, not
   * hashing; the password tests ask for the real cost.
   */
  bcryptCost?: number | null;
  /** The app's logger, for tests that read its lines (`captureLog`); silent unless VANTAGE_TEST_LOG. */
  log?: Logger;
  /** A results write-ahead log on a real JetStream (ADR 0012), as a controller with JetStream has. */
  resultsLog?: ResultsLog;
}

/** bcrypt's lowest cost: a hash in well under a millisecond instead of 50–80 ms of CPU at 10. */
export const TEST_BCRYPT_COST = 4;

/** The test apps' resolver: knows no name, asks nobody. */
export const refuseEveryName: NonNullable<LookupContext["lookup"]> = async (host) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (test apps resolve no names)`), {
    code: "ENOTFOUND",
  });
};

/**
 * A test application built without the presence role (`{presence: false}`): it has no `presence`; its
 * `nodes.watcher` holds the directory (stopped with `modules.nodes.watcher.stop()`).
 */
export type ApiOnlyTestApp = Omit<TestApp, "presence">;

/** Builds the full application (in-process transport) over an open test database. */
export function makeTestApp(
  testDb: TestDb,
  form: Form,
  env?: Record<string, string>,
  opts?: TestAppOptions & { presence?: true },
): TestApp;
export function makeTestApp(
  testDb: TestDb,
  form: Form,
  env: Record<string, string> | undefined,
  opts: TestAppOptions & { presence: false },
): ApiOnlyTestApp;
export function makeTestApp(
  testDb: TestDb,
  form: Form,
  env: Record<string, string> = {},
  opts: TestAppOptions = {},
): TestApp | ApiOnlyTestApp {
  const config = testConfig(form, env);
  const bus = opts.bus ?? new InProcessBus();
  const log = opts.log ?? pino({ level: process.env.VANTAGE_TEST_LOG ?? "silent" });
  const transport = bus.controller();
  const built = createApp({
    config,
    db: testDb.db,
    log,
    transport,
    metrics: new HttpMetrics(false),
    instanceId: newInstanceId(),
    hostLookup: opts.hostLookup ?? refuseEveryName,
    ...(opts.resultsLog ? { resultsLog: opts.resultsLog } : {}),
    ...(opts.bcryptCost === null ? {} : { bcryptCost: opts.bcryptCost ?? TEST_BCRYPT_COST }),
  });
  const contract = contractCheck(built.app);
  const app: ApiOnlyTestApp = {
    ...built,
    config,
    db: testDb.db,
    bus,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      let body: string | undefined;
      if (opts.body !== undefined) {
        body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await built.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (parsed !== undefined && res.headers.get("content-type")?.includes("json")) {
        const mismatch = contract.check(method, path, res.status, parsed);
        if (mismatch) reportMismatch(mismatch);
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
  };
  if (opts.presence === false) {
    // The api role's heartbeat subscription, at once; the nodes already known load on first use.
    built.modules.nodes.watcher.attach();
    return app;
  }
  // The presence role, subscribed at once; the nodes already known load on first use (`presence.ready`).
  return { ...app, presence: built.modules.nodes.presence.attach() };
}

/**
 * A JSON answer that does not match its documented schema fails the test that received it. With
 * VANTAGE_CONTRACT_LOG=<file> each mismatch is appended to the file instead, so one run lists them all.
 */
/** An object that stands for the database where nothing may use it: any call throws. */
const unusedDb: unknown = new Proxy(() => {}, {
  get: (_t, key) => (key === "then" ? undefined : unusedDb),
  apply: () => {
    throw new Error("the database of a contract-only app was used");
  },
});
const formContracts = new Map<Form, ReturnType<typeof contractCheck>>();

/**
 * Checks an answer of a controller running elsewhere (an e2e suite's process) against the document of
 * `form`, built once per form from the same route declarations; throws (or logs, as `call` does) on a
 * mismatch, naming the field.
 */
export function checkAnswer(form: Form, method: string, path: string, status: number, body: unknown): void {
  const mismatch = formContract(form).check(method, path, status, body);
  if (mismatch) reportMismatch(mismatch);
}

/**
 * The document of `form`, built on first use (about a second of CPU): a suite builds it before its timed
 * traffic (`cluster.startController` does), so that no answer waits for it.
 */
export function formContract(form: Form): ReturnType<typeof contractCheck> {
  let contract = formContracts.get(form);
  if (!contract) {
    const built = createApp({
      config: testConfig(form),
      db: unusedDb as Db,
      log: pino({ level: "silent" }),
      transport: new InProcessBus().controller(),
      metrics: new HttpMetrics(false),
      instanceId: newInstanceId(),
      hostLookup: refuseEveryName,
    });
    contract = contractCheck(built.app);
    formContracts.set(form, contract);
  }
  return contract;
}

function reportMismatch(mismatch: string): void {
  const file = process.env.VANTAGE_CONTRACT_LOG;
  if (file) appendFileSync(file, `${mismatch}\n`);
  else throw new Error(`answer does not match the OpenAPI document: ${mismatch}`);
}
