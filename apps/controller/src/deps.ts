import type { LookupContext } from "@vantage/lookups";
import type { ControllerTransport, ResultsLog } from "@vantage/transport";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Role } from "./config-process.js";
import type { Db } from "./db/connect.js";
import type { HttpMetrics } from "./http/metrics.js";
import type { Router } from "./http/router.js";

/**
 * What the composition root hands every module: the process's parts, created once by the runtime. This file
 * is a leaf: it imports no module and nothing imports `app.ts` back, so modules depend on it, not on each other.
 */
export interface AppDeps {
  config: Config;
  db: Db;
  log: Logger;
  transport: ControllerTransport;
  metrics: HttpMetrics;
  /** This controller process (`ctl_…`, one per start): the id of its lease in `controller_leases`. */
  instanceId: string;
  /**
   * The results write-ahead log on JetStream (ADR 0012): answered Form B tasks are in it before the answer.
   * Undefined in embedded mode and when the NATS server has no JetStream (write-behind alone, ADR 0005).
   */
  resultsLog?: ResultsLog | undefined;
  /**
   * Resolves the names lookups connect to (SSL, WHOIS, ICP servers): the system's resolver when omitted.
   * Tests replace it, so that no made-up name ever reaches the machine's resolver.
   */
  hostLookup?: LookupContext["lookup"];
  /**
   * bcrypt cost of new password hashes and of the dummy an unknown email is compared with: 10 (the
   * accounts module's `BCRYPT_COST`) when omitted, as in every deployment. Only the test apps lower it, so
   * that the hundreds of registrations and logins that test something else spend little CPU on hashing;
   * the password tests run at the real cost.
   */
  bcryptCost?: number;
}

/** A role's background work: started by the runtime when the controller runs that role, stopped in reverse. */
export interface Worker {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A module's background work for one role: the runtime starts it on a controller that runs the role. */
export interface RoleWorker extends Worker {
  readonly role: Role;
  /** Its name in the start-up log and in errors, e.g. `sweeper`. */
  readonly name: string;
}

/**
 * The one face of a module, as its `createX(deps, services)` returns it: `service` is the typed in-process
 * API that other modules, the scheduler, MCP and the dashboard call; `routes` registers its HTTP operations
 * (one consumer of the service among several); `workers` is its background work per role, which the
 * runtime starts for the roles this controller runs (role by role; within a role, in the order the modules
 * are created, so a module's workers start after those of the modules it uses) and stops in reverse.
 */
export interface Module<S> {
  readonly service: S;
  routes?(app: Router): void;
  readonly workers?: readonly RoleWorker[];
  /** Work that outlives a request (Form A dispatch, write-behind): awaited on shutdown, after the roles stop. */
  drain?(): Promise<void>;
}
