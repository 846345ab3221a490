import { type Kysely, sql } from "kysely";

/**
 * Verifiable results (issue #30 item 6, docs/verify.md): the public key each node signs its results with
 * (from its heartbeats), and each result's signature as the controller checked it:
 * `{key, sig, statement}` — the signed statement's canonical JSON kept as it was signed, so anyone can
 * check the signature again. Null for results without a (valid) signature.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table nodes add column public_key text`.execute(db);
  await sql`alter table probe_results add column signature jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table probe_results drop column signature`.execute(db);
  await sql`alter table nodes drop column public_key`.execute(db);
}
