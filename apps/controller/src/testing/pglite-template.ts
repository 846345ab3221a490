import { makePgliteTemplate } from "../db/pglite-template.js";

let loaded: Promise<Blob> | undefined;

/**
 * The migrated PGlite template (db/pglite-template.ts) for `connectDb({pgliteDump})`, made once per process
 * when the build has not made it: a test database loads it in well under a second instead of paying initdb
 * and the migrations (5–7 s of CPU). The test databases still run `migrate` after loading it (a no-op when
 * the template is current).
 */
export function migratedPgliteDump(): Promise<Blob> {
  loaded ??= makePgliteTemplate().then((t) => t.dump);
  return loaded;
}
