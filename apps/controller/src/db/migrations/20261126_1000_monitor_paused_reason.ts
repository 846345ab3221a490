import { type Kysely, sql } from "kysely";

/**
 * Why a monitor is paused: null when someone paused it (or it runs), `agent_crash` when its run was in
 * flight when a node's agent crashed (the run may be what ended the agent, so it is not sent again until
 * someone resumes the monitor).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitors add column paused_reason text`.execute(db);
}
