import { type PostgresCluster, startPostgresCluster } from "@vantage/testing";
import { afterAll, beforeAll } from "vitest";
import { connectDb, type Db, migrate } from "../db/connect.js";
import type { TestDb } from "./test-app.js";

export interface PgClusterFixture {
  /** The cluster, to stop and start; opened in the block's `beforeAll`. */
  readonly cluster: PostgresCluster;
  /** A migrated connection to it, as the controller opens one. */
  readonly db: Db;
  /** The connection as `makeTestApp` takes it (closed by the fixture, not by the app). */
  readonly testDb: TestDb;
}

/** A PostgreSQL cluster of the enclosing `describe` block's own, for tests that stop and start it. */
export function usePgCluster(): PgClusterFixture {
  let cluster: PostgresCluster | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    db = await connectDb({ databaseUrl: cluster.url, dataDir: "unused", maxConnections: 4 });
    await migrate(db);
  });
  afterAll(async () => {
    await db?.close();
    await cluster?.destroy();
  });
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("usePgCluster: the cluster opens in beforeAll");
    return value;
  };
  return {
    get cluster() {
      return opened(cluster);
    },
    get db() {
      return opened(db);
    },
    get testDb() {
      return { kind: "postgres" as const, db: opened(db), close: async () => {} };
    },
  };
}
