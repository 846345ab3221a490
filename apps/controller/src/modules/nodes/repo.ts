import { PROTOCOL_VERSION } from "@vantage/protocol";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { NodeState } from "./directory.js";

/** A column of values as a text array parameter; SQL casts it to the column's type. */
const column = (values: readonly (string | number | boolean)[]): RawBuilder<never> =>
  sql<never>`${values.map(String)}`;

/**
 * Writes the nodes' state, any number of nodes in one statement (presence batches a flush's worth): every
 * column travels as one array parameter, so the statement text is the same for any batch, prepared once per
 * connection, and building it costs the controller a few array maps instead of a parameter per value (12 per
 * node: 24,000 for the 2,000 heartbeats a second of 10,000 agents). `last_seen` is when presence received
 * the heartbeat. The ids must be distinct.
 */
export async function upsertNodes(db: Kysely<Database>, batch: readonly NodeState[]): Promise<void> {
  if (batch.length === 0) return;
  await sql`
    insert into nodes (id, name, country, region, provider, version, protocol_version, capabilities,
                       running_jobs, max_jobs, last_seen, draining, public_key)
    select v.id, v.name, v.country, v.region, v.provider, v.version, ${sql.lit(PROTOCOL_VERSION)}, v.capabilities,
           v.running_jobs, v.max_jobs, v.last_seen, v.draining, v.public_key
    from unnest(
      cast(${column(batch.map((n) => n.id))} as text[]),
      cast(${column(batch.map((n) => n.name))} as text[]),
      cast(${column(batch.map((n) => n.country))} as text[]),
      cast(${column(batch.map((n) => n.region))} as text[]),
      cast(${column(batch.map((n) => n.provider))} as text[]),
      cast(${column(batch.map((n) => n.version))} as text[]),
      cast(cast(${column(batch.map((n) => JSON.stringify(n.capabilities)))} as text[]) as jsonb[]),
      cast(cast(${column(batch.map((n) => n.runningJobs))} as text[]) as integer[]),
      cast(cast(${column(batch.map((n) => n.maxJobs))} as text[]) as integer[]),
      cast(cast(${column(batch.map((n) => new Date(n.lastSeen).toISOString()))} as text[]) as timestamptz[]),
      cast(cast(${column(batch.map((n) => n.draining))} as text[]) as boolean[]),
      cast(${sql<never>`${batch.map((n) => n.publicKey ?? null)}`} as text[])
    ) as v(id, name, country, region, provider, version, capabilities, running_jobs, max_jobs, last_seen,
           draining, public_key)
    on conflict (id) do update set
      name = excluded.name,
      country = excluded.country,
      region = excluded.region,
      provider = excluded.provider,
      version = excluded.version,
      protocol_version = excluded.protocol_version,
      capabilities = excluded.capabilities,
      running_jobs = excluded.running_jobs,
      max_jobs = excluded.max_jobs,
      last_seen = excluded.last_seen,
      draining = excluded.draining,
      public_key = coalesce(excluded.public_key, nodes.public_key)`.execute(db);
}
