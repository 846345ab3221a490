import { makePgliteTemplate } from "./pglite-template.js";

/**
 * `node apps/controller/dist/pglite-template.mjs`: makes the migrated PGlite template (./pglite-template.ts)
 * unless it is there already. Run by the controller's build, so a first embedded start loads the schema
 * instead of making it. Exits 1 when it could not be made; a controller then makes its database from scratch.
 */
try {
  const { file, made } = await makePgliteTemplate();
  if (made) process.stderr.write(`embedded database template written to ${file}\n`);
} catch (err) {
  process.stderr.write(`vantage pglite-template: ${String(err)}\n`);
  process.exit(1);
}
