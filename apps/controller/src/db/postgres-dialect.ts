import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import type { Sql, TransactionSql } from "postgres";
import { DatabaseUnavailableError } from "./availability.js";

/**
 * Kysely over postgres.js without reserved connections. `kysely-postgres-js` reserves a connection for
 * every query (`sql.reserve()`); postgres.js 3.4 puts a reserved connection that the server closed back
 * into its idle pool on release, and the next query written to it crashes the process from a timer
 * (`Cannot read properties of null (reading 'write')`): seen here when PostgreSQL stopped under load.
 * Plain queries go through the pool instead (postgres.js connects before it writes), and transactions
 * through `sql.begin`, which ends its connection properly whatever happens to it. A transaction whose
 * connection dies still writes its `rollback` to it: patches/postgres@3.4.9.patch (ADR 0007) makes that
 * write fail as CONNECTION_CLOSED instead of throwing from a timer.
 */
export function postgresDialect(client: Sql, inFlight = new InFlight()): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PostgresJsDriver(client, inFlight),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

/**
 * The operations waiting on postgres.js. A connection lost mid-operation is not always settled by postgres.js
 * 3.4 (seen under load: a query or a `begin` that never resolves nor rejects once PostgreSQL stopped). When
 * the database is found away, `abandon` ends what was already waiting by then, a grace later, with the
 * outage's error; and no operation waits longer than the query timeout (when every connection died at
 * once, nothing else tells the gate). Operations that settle meanwhile are unaffected.
 */
export class InFlight {
  /** `queryTimeoutMs`: no operation waits longer than this for PostgreSQL (0: no limit). */
  constructor(private readonly queryTimeoutMs = 0) {}

  private generation = 0;
  private readonly waiting = new Map<number, { generation: number; reject(err: unknown): void }>();
  private next = 0;

  /** `op` raced against its abandonment. */
  track<T>(op: Promise<T>): Promise<T> {
    const id = this.next++;
    const generation = this.generation;
    let reject!: (err: unknown) => void;
    const abandoned = new Promise<never>((_, r) => {
      reject = r;
    });
    this.waiting.set(id, { generation, reject });
    const timer =
      this.queryTimeoutMs > 0
        ? setTimeout(
            () =>
              reject(
                new DatabaseUnavailableError(`no answer from PostgreSQL within ${this.queryTimeoutMs} ms`),
              ),
            this.queryTimeoutMs,
          )
        : undefined;
    return Promise.race([op, abandoned]).finally(() => {
      clearTimeout(timer);
      this.waiting.delete(id);
    });
  }

  /** Ends, with `err`, every operation that started before this call and is still waiting `afterMs` later. */
  abandon(err: unknown, afterMs: number): void {
    const upTo = this.generation++;
    const timer = setTimeout(() => {
      for (const [id, w] of this.waiting) {
        if (w.generation > upTo) continue;
        this.waiting.delete(id);
        w.reject(err);
      }
    }, afterMs);
    timer.unref();
  }
}

/** Thrown into `sql.begin`'s callback to make it roll back; never seen by callers. */
const rollback = new Error("rollback");

class PostgresJsConnection implements DatabaseConnection {
  private tx:
    | {
        sql: TransactionSql;
        finish(commit: boolean): void;
        done: Promise<unknown>;
        /** Rejects when the transaction's connection is lost (`done` rejects); never resolves. */
        lost: Promise<never>;
      }
    | undefined;

  constructor(
    private readonly client: Sql,
    private readonly inFlight: InFlight,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const tx = this.tx;
    const pending = (tx?.sql ?? this.client).unsafe(query.sql, [...query.parameters] as never[]);
    // A query of a transaction whose connection the server closed is never settled by postgres.js 3.4
    // (it waits in the transaction's queue), while `sql.begin` itself rejects: take that as the answer.
    const result = await this.inFlight.track(tx ? Promise.race([pending, tx.lost]) : pending);
    const rows = Array.from(result) as R[];
    return ["INSERT", "UPDATE", "DELETE", "MERGE"].includes(result.command)
      ? { numAffectedRows: BigInt(result.count), rows }
      : { rows };
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    const target = this.tx?.sql ?? this.client;
    const cursor = target.unsafe(query.sql, [...query.parameters] as never[]).cursor(chunkSize);
    for await (const rows of cursor) yield { rows: rows as R[] };
  }

  /** Starts `sql.begin` and resolves once its callback holds the transaction's connection. */
  async begin(settings: TransactionSettings): Promise<void> {
    const options = [
      settings.isolationLevel ? `isolation level ${settings.isolationLevel}` : "",
      settings.accessMode ?? "",
    ]
      .filter(Boolean)
      .join(" ");
    let ready!: (sql: TransactionSql) => void;
    const started = new Promise<TransactionSql>((resolve) => {
      ready = resolve;
    });
    let finish!: (commit: boolean) => void;
    const body = (sql: TransactionSql) => {
      ready(sql);
      return new Promise<void>((resolve, reject) => {
        finish = (commit) => (commit ? resolve() : reject(rollback));
      });
    };
    const done = options ? this.client.begin(options, body) : this.client.begin(body);
    // `begin` fails before the callback runs when no connection can be had.
    const early = done.then(() => {
      throw new Error("transaction ended before it began");
    });
    early.catch(() => {});
    const sql = await this.inFlight.track(Promise.race([started, early]));
    const lost = done.then(
      () => new Promise<never>(() => {}),
      (err: unknown) => {
        throw err;
      },
    );
    lost.catch(() => {});
    this.tx = { sql, finish: (commit) => finish(commit), done, lost };
  }

  async end(commit: boolean): Promise<void> {
    const tx = this.tx;
    if (!tx) {
      // Kysely rolls back after a failed commit (the server gone mid-commit), which had already ended the
      // transaction: nothing is left to undo, and the commit's error is the caller's answer (a 503). An
      // error here would replace it (a 500).
      if (!commit) return;
      throw new Error("no transaction in progress");
    }
    this.tx = undefined;
    tx.finish(commit);
    try {
      await this.inFlight.track(tx.done);
    } catch (err) {
      if (err !== rollback) throw err;
    }
  }
}

class PostgresJsDriver implements Driver {
  constructor(
    private readonly client: Sql,
    private readonly inFlight: InFlight,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PostgresJsConnection(this.client, this.inFlight);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as PostgresJsConnection).begin(settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PostgresJsConnection).end(true);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PostgresJsConnection).end(false);
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    // Queries in flight get 5 s to finish; a database that is away does not hold the shutdown.
    await this.client.end({ timeout: 5 });
  }
}
