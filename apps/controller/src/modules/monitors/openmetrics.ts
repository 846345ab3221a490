import { createHash, randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import { ApiError } from "../../http/errors.js";

/**
 * The per-account OpenMetrics endpoint (issue #29 item 7): a scrape token per account (`vmt_…`, shown once,
 * only its SHA-256 stored) and the exposition of every monitor's up, latency and 24 h uptime.
 */

const PREFIX = "vmt_";
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

export interface MetricsTokenInfo {
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** A new token for the account, replacing any other: the token itself is answered this once. */
export async function rotateToken(
  db: Kysely<Database>,
  ownerId: string,
): Promise<MetricsTokenInfo & { token: string }> {
  const token = `${PREFIX}${randomBytes(24).toString("base64url")}`;
  const row = {
    owner_id: ownerId,
    token_hash: sha256(token),
    prefix: token.slice(0, PREFIX.length + 6),
    created_at: new Date(),
    last_used_at: null,
  };
  await db
    .insertInto("metrics_tokens")
    .values(row)
    .onConflict((oc) =>
      oc.column("owner_id").doUpdateSet({
        token_hash: row.token_hash,
        prefix: row.prefix,
        created_at: row.created_at,
        last_used_at: null,
      }),
    )
    .execute();
  return { token, prefix: row.prefix, created_at: row.created_at, last_used_at: null };
}

export async function tokenInfo(
  db: Kysely<Database>,
  ownerId: string,
): Promise<MetricsTokenInfo | undefined> {
  const r = await db
    .selectFrom("metrics_tokens")
    .select(["prefix", "created_at", "last_used_at"])
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
  return (
    r && {
      prefix: r.prefix,
      created_at: new Date(r.created_at),
      last_used_at: r.last_used_at ? new Date(r.last_used_at) : null,
    }
  );
}

export async function revokeToken(db: Kysely<Database>, ownerId: string): Promise<boolean> {
  const r = await db.deleteFrom("metrics_tokens").where("owner_id", "=", ownerId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The account a scrape's `Authorization: Bearer vmt_…` belongs to; 401 otherwise. */
export async function ownerOfToken(db: Kysely<Database>, authorization: string | undefined): Promise<string> {
  const sent = /^Bearer +(\S+) *$/i.exec(authorization ?? "")?.[1];
  if (sent === undefined)
    throw new ApiError("unauthorized", "send the account's metrics token: Authorization: Bearer vmt_…");
  const row = await db
    .updateTable("metrics_tokens")
    .set({ last_used_at: new Date() })
    .where("token_hash", "=", sha256(sent))
    .returning("owner_id")
    .executeTakeFirst();
  if (!row)
    throw new ApiError("unauthorized", "invalid metrics token", undefined, {
      "WWW-Authenticate": 'Bearer error="invalid_token"',
    });
  return row.owner_id;
}

interface MonitorFigures {
  id: string;
  name: string;
  type: string;
  state: string;
  runs: number;
  failures: number;
  latency_ms: number | null;
}

/** Every monitor of the owner with its 24 h runs and failures and its newest run's median latency. */
export async function ownerFigures(
  db: Kysely<Database>,
  ownerId: string,
  now: Date,
): Promise<MonitorFigures[]> {
  const from = new Date(Math.floor((now.getTime() - 86_400_000) / 3_600_000) * 3_600_000);
  const progress = await db
    .selectFrom("monitor_rollups")
    .select("bucket")
    .where("monitor_seq", "=", 0)
    .where("period", "=", "hour")
    .executeTakeFirst();
  const hoursDone = progress ? new Date(progress.bucket).getTime() : from.getTime();
  const split = new Date(Math.min(Math.max(hoursDone, from.getTime()), now.getTime()));
  const { rows } = await sql<{
    id: string;
    name: string;
    type: string;
    state: string;
    runs: number | string | null;
    failures: number | string | null;
    raw_runs: number | string | null;
    raw_failures: number | string | null;
    latency: number | string | null;
  }>`
    select m.id, m.name, m.type, m.state, h.runs, h.failures, r.runs as raw_runs, r.failures as raw_failures, l.latency
    from monitors m
    left join lateral (
      select sum(runs) as runs, sum(failures) as failures from monitor_rollups
      where monitor_seq = m.seq and period = 'hour' and bucket >= ${from} and bucket < ${split}
    ) h on true
    left join lateral (
      select count(*) as runs, count(*) filter (where not passed) as failures from (
        select 2 * count(*) filter (where success) > count(*) as passed from monitor_runs
        where monitor_seq = m.seq and slot >= ${split} and slot < ${now} group by slot
      ) s
    ) r on true
    left join lateral (
      select percentile_cont(0.5) within group (order by latency_ms) as latency from monitor_runs
      where monitor_seq = m.seq and success and latency_ms is not null
        and slot = (select max(slot) from monitor_runs where monitor_seq = m.seq)
    ) l on true
    where m.owner_id = ${ownerId}
    order by m.id`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    type: r.type,
    state: r.state,
    runs: Number(r.runs ?? 0) + Number(r.raw_runs ?? 0),
    failures: Number(r.failures ?? 0) + Number(r.raw_failures ?? 0),
    latency_ms: r.latency === null ? null : Number(r.latency),
  }));
}

/** A label value escaped as the OpenMetrics text format wants (backslash, quote, line feed). */
const label = (v: string) => v.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");

export const OPENMETRICS_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/** The OpenMetrics text exposition of the figures, ending with `# EOF`. */
export function renderOpenMetrics(figures: MonitorFigures[]): string {
  const labels = (f: MonitorFigures) =>
    `monitor_id="${label(f.id)}",name="${label(f.name)}",type="${label(f.type)}"`;
  const out: string[] = [];
  out.push("# TYPE vantage_monitor_up gauge");
  out.push("# HELP vantage_monitor_up 1 when the monitor is up, 0 when down, NaN while unknown.");
  for (const f of figures)
    out.push(`vantage_monitor_up{${labels(f)}} ${f.state === "up" ? 1 : f.state === "down" ? 0 : "NaN"}`);
  out.push("# TYPE vantage_monitor_latency_seconds gauge");
  out.push("# UNIT vantage_monitor_latency_seconds seconds");
  out.push("# HELP vantage_monitor_latency_seconds Median latency of the passing nodes of the newest run.");
  for (const f of figures)
    if (f.latency_ms !== null)
      out.push(`vantage_monitor_latency_seconds{${labels(f)}} ${f.latency_ms / 1000}`);
  out.push("# TYPE vantage_monitor_uptime_ratio gauge");
  out.push("# UNIT vantage_monitor_uptime_ratio ratio");
  out.push("# HELP vantage_monitor_uptime_ratio Passing runs over the last 24 hours (0-1).");
  for (const f of figures)
    if (f.runs > 0)
      out.push(`vantage_monitor_uptime_ratio{${labels(f)},window="24h"} ${(f.runs - f.failures) / f.runs}`);
  out.push("# EOF");
  return `${out.join("\n")}\n`;
}
