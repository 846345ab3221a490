import { type Api, call, readEnvelope, send } from "./api-client.js";
import { type Invocation, intFlag, listFlag, stringFlag } from "./commands.js";
import { UsageError } from "./errors.js";
import { table } from "./table.js";

/**
 * Monitoring commands (issue #29): maintenance windows (`maintenance list|create|delete`), acknowledging an
 * alert (`ack <event id>`), and a monitor's runs streamed to stdout (`export <monitor id>`).
 */

interface Window {
  id: string;
  title: string;
  scope: string;
  monitor_ids: string[];
  kind: string;
  active: boolean;
  upcoming: { starts_at: string; ends_at: string }[];
  recurrence: { rrule: string; time_zone: string } | null;
}

/** The body of `maintenance create` from its options. */
export function maintenanceBody(v: Invocation["values"]): Record<string, unknown> {
  const title = stringFlag(v, "title");
  if (!title) throw new UsageError("--title is required", "maintenance");
  const monitors = listFlag(v, "monitors") ?? [];
  if (v.all !== true && monitors.length === 0)
    throw new UsageError("name the monitors (--monitors id,id) or --all", "maintenance");
  const rrule = stringFlag(v, "rrule");
  const body: Record<string, unknown> = {
    title,
    ...(v.all === true ? { scope: "all" } : { monitor_ids: monitors }),
  };
  if (rrule) {
    const start = stringFlag(v, "start");
    const tz = stringFlag(v, "tz");
    const minutes = intFlag(v, "minutes", 1, 10_080);
    if (!start || !tz || minutes === undefined)
      throw new UsageError(
        "--rrule needs --start <YYYY-MM-DDTHH:MM>, --tz <zone> and --minutes <n>",
        "maintenance",
      );
    body.recurrence = { rrule, start_local: start, time_zone: tz, duration_minutes: minutes };
  } else {
    const start = stringFlag(v, "start");
    const end = stringFlag(v, "end");
    if (!start || !end)
      throw new UsageError("a one-off window needs --start and --end (ISO 8601)", "maintenance");
    body.starts_at = start;
    body.ends_at = end;
  }
  return body;
}

export async function maintenance(api: Api, inv: Invocation, out: (s: string) => void): Promise<void> {
  const action = inv.arg;
  if (action === "list") {
    const data = await call<{ items: Window[] }>(api, "/v1/maintenance-windows", {
      query: api.form === "a" ? { limit: 100 } : { per_page: 100 },
    });
    if (inv.values.json) return out(JSON.stringify(data, null, 2));
    const rows = data.items.map((w) => [
      w.id,
      w.title,
      w.scope === "all" ? "all" : w.monitor_ids.join(","),
      w.recurrence ? `${w.recurrence.rrule} (${w.recurrence.time_zone})` : "once",
      w.active ? "yes" : "no",
      w.upcoming[0] ? `${w.upcoming[0].starts_at} – ${w.upcoming[0].ends_at}` : "-",
    ]);
    return out(table(["ID", "TITLE", "MONITORS", "WHEN", "ACTIVE", "NEXT"], rows));
  }
  if (action === "create") {
    const w = await call<Window>(api, "/v1/maintenance-windows", {
      method: "POST",
      body: maintenanceBody(inv.values),
    });
    return out(
      inv.values.json ? JSON.stringify(w, null, 2) : `created ${w.id}${w.active ? " (open now)" : ""}`,
    );
  }
  if (action === "delete") {
    const id = stringFlag(inv.values, "id");
    if (!id) throw new UsageError("--id <window id> is required", "maintenance");
    await call(api, `/v1/maintenance-windows/${encodeURIComponent(id)}`, { method: "DELETE" });
    return out(`deleted ${id}`);
  }
  throw new UsageError(`unknown action ${action ?? ""}: list, create or delete`, "maintenance");
}

export async function ack(api: Api, inv: Invocation, out: (s: string) => void): Promise<void> {
  const e = await call<{ id: string; acknowledged_at: string }>(
    api,
    `/v1/alert-events/${encodeURIComponent(inv.arg ?? "")}/ack`,
    { method: "POST" },
  );
  out(inv.values.json ? JSON.stringify(e, null, 2) : `acknowledged ${e.id} at ${e.acknowledged_at}`);
}

/** Streams the export to `stdout` as it arrives (any range, constant memory). */
export async function exportRuns(
  api: Api,
  inv: Invocation,
  stdout: { write(chunk: Uint8Array): unknown },
): Promise<void> {
  const format = stringFlag(inv.values, "format") ?? "ndjson";
  if (format !== "ndjson" && format !== "csv") throw new UsageError("--format is ndjson or csv", "export");
  const res = await send(api.url, `/v1/monitors/${encodeURIComponent(inv.arg ?? "")}/export`, {
    key: api.key,
    accept: format === "csv" ? "text/csv" : "application/x-ndjson",
    query: { format, from: stringFlag(inv.values, "from"), to: stringFlag(inv.values, "to") },
  });
  if (!res.ok || !res.body) await readEnvelope(res);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) stdout.write(chunk);
}
