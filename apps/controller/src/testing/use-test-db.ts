import { afterAll, beforeAll } from "vitest";
import {
  type ApiOnlyTestApp,
  type DbKind,
  type Form,
  makeTestApp,
  openTestDb,
  type TestApp,
  type TestAppOptions,
  type TestDb,
} from "./test-app.js";

export interface TestDbFixture {
  /** The open database; it opens in the block's `beforeAll`, so read it inside hooks and tests only. */
  readonly testDb: TestDb;
  /** Builds the application over the database; it is stopped when the block ends. */
  app(form: Form, env?: Record<string, string>, opts?: TestAppOptions & { presence?: true }): TestApp;
  /** The same without the presence role: it follows heartbeats as an api-only controller does. */
  app(
    form: Form,
    env: Record<string, string> | undefined,
    opts: TestAppOptions & { presence: false },
  ): ApiOnlyTestApp;
  /** An application over an empty node table, its presence loaded, so a test sees only its own agents. */
  freshApp(
    form: Form,
    env?: Record<string, string>,
    opts?: TestAppOptions & { presence?: true },
  ): Promise<TestApp>;
}

/**
 * A migrated database of `kind` for the enclosing `describe` block: opened before its tests; after them,
 * every application made through the fixture is stopped and the database closed.
 */
export function useTestDb(kind: DbKind): TestDbFixture {
  let opened: TestDb | undefined;
  const apps: Array<TestApp | ApiOnlyTestApp> = [];
  beforeAll(async () => {
    opened = await openTestDb(kind);
  });
  afterAll(async () => {
    for (const t of apps) {
      await t.drain();
      if ("presence" in t) await t.presence.stop();
      else await t.modules.nodes.watcher.stop();
      await t.modules.accounts.close();
    }
    await opened?.close();
  });

  function app(
    form: Form,
    env?: Record<string, string>,
    opts?: TestAppOptions & { presence?: true },
  ): TestApp;
  function app(
    form: Form,
    env: Record<string, string> | undefined,
    opts: TestAppOptions & { presence: false },
  ): ApiOnlyTestApp;
  function app(
    form: Form,
    env: Record<string, string> = {},
    opts: TestAppOptions = {},
  ): TestApp | ApiOnlyTestApp {
    const t =
      opts.presence === false
        ? makeTestApp(fixture.testDb, form, env, { ...opts, presence: false })
        : makeTestApp(fixture.testDb, form, env, { ...opts, presence: true });
    apps.push(t);
    return t;
  }

  const fixture: TestDbFixture = {
    get testDb() {
      if (!opened)
        throw new Error(`useTestDb(${kind}): the database opens in beforeAll; use it in hooks and tests`);
      return opened;
    },
    app,
    async freshApp(form, env = {}, opts = {}) {
      // The earlier apps' presence roles would still write their agents' heartbeats (a batch can land after
      // the delete on a loaded machine): stopped first, so the new app sees only its own nodes.
      for (const earlier of apps) if ("presence" in earlier) await earlier.presence.stop();
      await fixture.testDb.db.kysely.deleteFrom("nodes").execute();
      const t = fixture.app(form, env, opts);
      await t.presence.ready;
      return t;
    },
  };
  return fixture;
}
