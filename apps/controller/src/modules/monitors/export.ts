import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";

/**
 * A monitor's raw runs as NDJSON or CSV (issue #29 item 7), streamed: pages of `EXPORT_PAGE` rows read by
 * keyset on the primary key `(monitor_seq, slot, node_id)`, each written before the next is read, so any
 * range costs constant memory and a client that stops reading stops the reads.
 */

export type ExportFormat = "ndjson" | "csv";
export const EXPORT_PAGE = 2000;

export const exportTypes: Record<ExportFormat, string> = {
  ndjson: "application/x-ndjson",
  csv: "text/csv; charset=utf-8",
};

const CSV_COLUMNS = ["slot", "node_id", "success", "latency_ms", "error_code", "status_code"] as const;

interface Row {
  slot: Date | string;
  node_id: string;
  success: boolean;
  latency_ms: number | string | null;
  error_code: string | null;
  status_code: number | null;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function line(format: ExportFormat, r: Row): string {
  const row = {
    slot: new Date(r.slot).toISOString(),
    node_id: r.node_id,
    success: r.success,
    latency_ms: r.latency_ms === null ? null : Math.round(Number(r.latency_ms) * 1000) / 1000,
    error_code: r.error_code,
    status_code: r.status_code,
  };
  if (format === "ndjson") return `${JSON.stringify(row)}\n`;
  return `${CSV_COLUMNS.map((c) => csvField(row[c])).join(",")}\r\n`;
}

/** Which format a request asks for: `format` wins; else the `Accept` header; else NDJSON. */
export function exportFormatOf(format: ExportFormat | undefined, accept: string | undefined): ExportFormat {
  if (format) return format;
  const a = (accept ?? "").toLowerCase();
  if (a.includes("text/csv")) return "csv";
  return "ndjson";
}

/** The runs of monitor `seq` with a slot in `[from, to)`, oldest first, as a byte stream of lines. */
export function exportStream(
  db: Kysely<Database>,
  seq: string,
  from: Date,
  to: Date,
  format: ExportFormat,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: { slot: Date; node: string } | null = null;
  let header = format === "csv";
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (header) {
        header = false;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
        return;
      }
      if (done) {
        controller.close();
        return;
      }
      const keyset = after ? sql`and (slot, node_id) > (${after.slot}, ${after.node})` : sql``;
      const { rows } = await sql<Row>`
        select slot, node_id, success, latency_ms, error_code, status_code from monitor_runs
        where monitor_seq = ${seq} and slot >= ${from} and slot < ${to} ${keyset}
        order by slot, node_id limit ${EXPORT_PAGE}`.execute(db);
      if (rows.length < EXPORT_PAGE) done = true;
      const last = rows.at(-1);
      if (last) after = { slot: new Date(last.slot), node: last.node_id };
      if (rows.length > 0) controller.enqueue(encoder.encode(rows.map((r) => line(format, r)).join("")));
      if (done) controller.close();
    },
  });
}
