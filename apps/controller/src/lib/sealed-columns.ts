import { sql } from "kysely";
import type { Db } from "../db/connect.js";
import type { SecretBox } from "./secret-box.js";

/** A column holding values sealed with the secret box (one per row, bound to the row by `aad`). */
export interface SealedColumn {
  table: string;
  column: string;
  /** The table's primary key column. */
  id: string;
  /** The aad the value was sealed with, from the row's id: it must match the one the owning module uses. */
  aad: (id: string) => string;
}

/**
 * Every sealed column, which `pnpm secrets:rotate` re-seals. A module that stores sealed values adds its
 * column here, with the aad it seals with.
 */
export const sealedColumns: readonly SealedColumn[] = [
  // modules/alerts/service.ts seals a channel's secret settings with this aad.
  { table: "alert_channels", column: "secrets", id: "id", aad: (id) => `alert_channels:${id}` },
  // modules/status-pages/service.ts seals a webhook subscriber's signing secret with this aad.
  { table: "status_subscribers", column: "secret_sealed", id: "id", aad: (id) => `status_subscribers:${id}` },
];

export interface ResealCounts {
  table: string;
  column: string;
  /** Already sealed with the current key. */
  current: number;
  /** Sealed with a previous key and re-sealed (dry run: would be). */
  resealed: number;
  /** Changed by someone else between the read and the write: left alone, a second run takes them. */
  changed: number;
  /** Cannot be opened (unknown key, damaged, or another aad); their ids, at most 20, in `unreadableIds`. */
  unreadable: number;
  unreadableIds: string[];
}

export interface ResealOptions {
  /** Rows read and written per transaction. */
  batchSize?: number;
  /** Count and check only; write nothing. */
  dryRun?: boolean;
  /** Called after each batch with the counts so far. */
  onBatch?: (counts: ResealCounts) => void;
}

/**
 * Re-seals with the current key every value of the columns not sealed with it. Rows are walked in id order
 * in batches, one transaction each; a row is written only while it still holds the value read, so a
 * controller changing a secret meanwhile wins. Values that do not open are counted, never changed.
 */
export async function resealColumns(
  db: Db,
  box: SecretBox,
  columns: readonly SealedColumn[],
  opts: ResealOptions = {},
): Promise<ResealCounts[]> {
  const out: ResealCounts[] = [];
  for (const column of columns) out.push(await resealColumn(db, box, column, opts));
  return out;
}

async function resealColumn(
  db: Db,
  box: SecretBox,
  target: SealedColumn,
  opts: ResealOptions,
): Promise<ResealCounts> {
  const batchSize = opts.batchSize ?? 500;
  const table = sql.table(target.table);
  const column = sql.id(target.column);
  const id = sql.id(target.id);
  const currentPrefix = `v1.${box.currentKeyId}.%`;
  const counts: ResealCounts = {
    table: target.table,
    column: target.column,
    current: 0,
    resealed: 0,
    changed: 0,
    unreadable: 0,
    unreadableIds: [],
  };
  const { rows: currentRows } = await sql<{ n: string | number }>`
    select count(*) as n from ${table} where ${column} like ${currentPrefix}`.execute(db.kysely);
  counts.current = Number(currentRows[0]?.n ?? 0);

  let after: unknown;
  for (;;) {
    const { rows } = await sql<{ id: unknown; sealed: string }>`
      select ${id} as id, ${column} as sealed from ${table}
      where ${column} is not null and ${column} not like ${currentPrefix}
        ${after === undefined ? sql`` : sql`and ${id} > ${after}`}
      order by ${id} limit ${batchSize}`.execute(db.kysely);
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;

    const updates: { id: unknown; sealed: string; resealed: string }[] = [];
    for (const row of rows) {
      const aad = target.aad(String(row.id));
      try {
        updates.push({ ...row, resealed: box.seal(box.open(row.sealed, aad), aad) });
      } catch {
        counts.unreadable++;
        if (counts.unreadableIds.length < 20) counts.unreadableIds.push(String(row.id));
      }
    }
    if (opts.dryRun) counts.resealed += updates.length;
    else if (updates.length > 0) {
      await db.kysely.transaction().execute(async (trx) => {
        for (const u of updates) {
          const { rows: written } = await sql`
            update ${table} set ${column} = ${u.resealed}
            where ${id} = ${u.id} and ${column} = ${u.sealed}
            returning 1 as written`.execute(trx);
          if (written.length > 0) counts.resealed++;
          else counts.changed++;
        }
      });
    }
    opts.onBatch?.({ ...counts, unreadableIds: [...counts.unreadableIds] });
    if (rows.length < batchSize) break;
  }
  return counts;
}
