import { sql } from "kysely";
import { ConfigError, loadConfig } from "./config.js";
import { configuredDb, connectDb } from "./db/connect.js";
import { planNames } from "./lib/plans.js";
import { announceAccountChange } from "./modules/accounts/index.js";

/**
 * `pnpm account:plan <email> <plan>`: sets an account's plan (free, pro, business) in the configured
 * database, until billing does it. Controllers see the change at once: the update sends the same NOTIFY as
 * the accounts service's `setPlan`, delivered when it commits (a controller whose listen connection is down
 * meanwhile sees it within its credential cache's 10 s).
 * Exit codes: 0 done, 1 no such account or the database failed, 2 usage or configuration error.
 * With the embedded database (no DATABASE_URL) stop the service first: PGlite is one process's alone.
 */
const usage = `usage: pnpm account:plan <email> <${planNames.join("|")}>`;
const [email, plan] = process.argv.slice(2);
if (!email || !plan || process.argv.length > 4) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}
if (!(planNames as readonly string[]).includes(plan)) {
  process.stderr.write(`vantage account:plan: unknown plan "${plan}" (plans: ${planNames.join(", ")})\n`);
  process.exit(2);
}
try {
  const config = loadConfig();
  const db = await connectDb(configuredDb(config));
  try {
    const row = await db.kysely.transaction().execute(async (tx) => {
      const { rows } = await sql<{ id: string; email: string; before: string }>`
        update users set plan = ${plan}, updated_at = now()
        from (select id, plan as before from users where lower(email) = ${email.trim().toLowerCase()}) old
        where users.id = old.id
        returning users.id, users.email, old.before`.execute(tx);
      if (rows[0]) await announceAccountChange(tx, rows[0].id);
      return rows[0];
    });
    if (!row) {
      process.stderr.write(`vantage account:plan: no account has the email ${email}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(`${row.email} (${row.id}): plan ${row.before} → ${plan}\n`);
    }
  } finally {
    await db.close();
  }
} catch (err) {
  process.stderr.write(`vantage account:plan: ${err instanceof ConfigError ? err.message : String(err)}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
