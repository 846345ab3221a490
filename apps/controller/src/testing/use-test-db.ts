import { afterAll, beforeAll } from "vitest";
import { type DbKind, type Form, makeTestApp, openTestDb, type TestApp, type TestDb } from "./test-app.js";

export interface TestDbFixture {
  /** The open database; it opens in the block's `beforeAll`, so read it inside hooks and tests only. */
  readonly testDb: TestDb;
  /** Builds the application over the database; it is stopped when the block ends. */
  app(form: Form, env?: Record<string, string>): TestApp;
  /** An application over an empty node table, its presence loaded, so a test sees only its own agents. */
  freshApp(form: Form, env?: Record<string, string>): Promise<TestApp>;
}

/**
 * A migrated database of `kind` for the enclosing `describe` block: opened before its tests; after them,
 * every application made through the fixture is stopped and the database closed.
 */
export function useTestDb(kind: DbKind): TestDbFixture {
  let opened: TestDb | undefined;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    opened = await openTestDb(kind);
  });
  afterAll(async () => {
    for (const t of apps) {
      await t.drain();
      await t.presence.stop();
    }
    await opened?.close();
  });

  const fixture: TestDbFixture = {
    get testDb() {
      if (!opened)
        throw new Error(`useTestDb(${kind}): the database opens in beforeAll; use it in hooks and tests`);
      return opened;
    },
    app(form, env = {}) {
      const t = makeTestApp(fixture.testDb, form, env);
      apps.push(t);
      return t;
    },
    async freshApp(form, env = {}) {
      await fixture.testDb.db.kysely.deleteFrom("nodes").execute();
      const t = fixture.app(form, env);
      await t.presence.ready;
      return t;
    },
  };
  return fixture;
}
