import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryResult,
  TransactionSettings,
} from "kysely";
import type { Logger } from "pino";

/** Thrown instead of waiting while the database is known to be away (see `AvailabilityGate`). */
export class DatabaseUnavailableError extends Error {
  readonly code = "DB_UNAVAILABLE";
}

/**
 * The database is away or refusing connections, as opposed to a bug: no connection (postgres.js
 * `CONNECTION_*`/`CONNECT_TIMEOUT`, a socket error: EPIPE when a write meets a server already gone), PostgreSQL's connection-exception (08), resource (53)
 * and operator-intervention (57P: 57P01 shutting down, 57P03 starting up) classes, a closed PGlite, or the
 * gate's own refusal.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (/^(08|53|57P)/.test(code)) return true;
    if (
      /^(CONNECTION_|CONNECT_TIMEOUT$|ECONNREFUSED$|ECONNRESET$|EPIPE$|ETIMEDOUT$|EHOSTUNREACH$|DB_UNAVAILABLE$)/.test(
        code,
      )
    )
      return true;
  }
  return err instanceof Error && /PGlite is closed/i.test(err.message);
}

/**
 * What the guarded driver throws for `err`: a Node system error (it carries `syscall`: the resolver's
 * `getaddrinfo`, a socket's `connect`, `read` or `write`) is the connection failing, whatever its code, and
 * becomes a `DatabaseUnavailableError` when `isDatabaseUnavailable` does not know the code already: a
 * database host name that stopped resolving (EAI_AGAIN, ENOTFOUND) or whose route went away (ENETUNREACH)
 * answered every request with a 500 and a stack, and never opened the gate. PostgreSQL's own errors carry
 * no `syscall` and pass unchanged.
 */
export function fromDriver(err: unknown): unknown {
  const syscall = (err as { syscall?: unknown } | null)?.syscall;
  if (typeof syscall !== "string" || isDatabaseUnavailable(err)) return err;
  // The message carries the original (code, host, port); as `cause` pino would print it a second time.
  return new DatabaseUnavailableError(`the database cannot be reached: ${describeDbError(err)}`);
}

/** What to throw for an error of the driver (see `fromDriver`); the gate is told when it is an outage. */
function driverFailure(gate: AvailabilityGate, thrown: unknown): unknown {
  const err = fromDriver(thrown);
  if (isDatabaseUnavailable(err)) gate.markDown(err);
  return err;
}

/** `code: message` of a database error, in one short line (no stack): what a log line needs of it. */
export function describeDbError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === "string" ? e.message : String(err);
  return typeof e?.code === "string" ? `${e.code}: ${message}` : message;
}

/**
 * Logs a failed round of background work (a poll, a sweep, a claim): at `level` with the error, unless
 * the database is away; the outage is then logged once by the gate's change (runtime.ts), and the round
 * adds a short debug line without a stack (the loops run every few hundred milliseconds).
 */
export function logRoundFailure(
  log: Pick<Logger, "warn" | "error" | "debug">,
  err: unknown,
  msg: string,
  level: "warn" | "error" = "warn",
): void {
  if (isDatabaseUnavailable(err)) log.debug({ db_error: describeDbError(err) }, msg);
  else log[level]({ err }, msg);
}

export interface AvailabilityOptions {
  /** While away, one request this often is let through to find out whether it is back. */
  probeEveryMs: number;
  /** Told when the database goes away (with the error that said so) and when it is back. */
  onChange?: (up: boolean, err?: unknown) => void;
  now?: () => number;
}

/**
 * Whether the database answers, as the queries themselves find out. While it is away, every query fails at
 * once with `DatabaseUnavailableError` (the HTTP layer answers 503 with `Retry-After`) instead of waiting
 * for a connection attempt; one query every `probeEveryMs` is let through to try, so the controller
 * recovers by itself once the database answers again.
 */
export class AvailabilityGate {
  private up = true;
  private nextProbeAt = 0;
  private readonly now: () => number;

  constructor(private readonly opts: AvailabilityOptions) {
    this.now = opts.now ?? Date.now;
  }

  get available(): boolean {
    return this.up;
  }

  /** May a request try for a connection now? While away: only the one probing request per interval. */
  admits(): boolean {
    if (this.up) return true;
    const now = this.now();
    if (now < this.nextProbeAt) return false;
    this.nextProbeAt = now + this.opts.probeEveryMs;
    return true;
  }

  markDown(err: unknown): void {
    this.nextProbeAt = this.now() + this.opts.probeEveryMs;
    if (!this.up) return;
    this.up = false;
    this.opts.onChange?.(false, err);
  }

  markUp(): void {
    if (this.up) return;
    this.up = true;
    this.opts.onChange?.(true);
  }

  refusal(): DatabaseUnavailableError {
    return new DatabaseUnavailableError("the database is unavailable (failing fast until it answers again)");
  }
}

/** `dialect` with its driver behind the gate: queries fail at once while the database is away. */
export function guardedDialect(dialect: Dialect, gate: AvailabilityGate): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => new GuardedDriver(dialect.createDriver(), gate),
  };
}

/** A connection whose outcomes tell the gate; the driver hands the inner one back to the inner driver. */
class GuardedConnection implements DatabaseConnection {
  /** Inside a transaction the gate was asked once, at its start. */
  inTransaction = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly gate: AvailabilityGate,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.inTransaction && !this.gate.admits()) throw this.gate.refusal();
    try {
      const result = await this.inner.executeQuery<R>(query);
      this.gate.markUp();
      return result;
    } catch (thrown) {
      throw driverFailure(this.gate, thrown);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class GuardedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly gate: AvailabilityGate,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new GuardedConnection(await this.inner.acquireConnection(), this.gate);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const guarded = connection as GuardedConnection;
    if (!this.gate.admits()) throw this.gate.refusal();
    try {
      await this.inner.beginTransaction(guarded.inner, settings);
      guarded.inTransaction = true;
    } catch (thrown) {
      throw driverFailure(this.gate, thrown);
    }
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.endTransaction(connection as GuardedConnection, true);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.endTransaction(connection as GuardedConnection, false);
  }

  private async endTransaction(connection: GuardedConnection, commit: boolean): Promise<void> {
    connection.inTransaction = false;
    try {
      if (commit) await this.inner.commitTransaction(connection.inner);
      else await this.inner.rollbackTransaction(connection.inner);
    } catch (thrown) {
      throw driverFailure(this.gate, thrown);
    }
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as GuardedConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
