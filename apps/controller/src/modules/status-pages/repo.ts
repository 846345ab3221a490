import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type {
  IncidentImpact,
  IncidentStatus,
  StatusIncidentsTable,
  StatusIncidentUpdatesTable,
  StatusMaintenanceTable,
  StatusPagesTable,
  StoredComponent,
} from "../../db/tables/status-pages.js";
import { newId } from "../../lib/ids.js";

/** Every SQL statement over the status pages' tables (subscribers and webhooks: subscribers-repo.ts). */

export * from "./subscribers-repo.js";

type Db = Kysely<Database> | Transaction<Database>;
export type PageRow = Selectable<StatusPagesTable>;
export type IncidentRow = Selectable<StatusIncidentsTable>;
export type UpdateRow = Selectable<StatusIncidentUpdatesTable>;
export type MaintenanceRow = Selectable<StatusMaintenanceTable>;
export type IncidentWithUpdates = IncidentRow & { updates: UpdateRow[] };

const toDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));
const page = (r: PageRow): PageRow => ({
  ...r,
  components: typeof r.components === "string" ? JSON.parse(r.components) : r.components,
  created_at: toDate(r.created_at),
  updated_at: toDate(r.updated_at),
});

export interface PageValues {
  slug: string;
  title: string;
  logo_url: string | null;
  custom_domain: string | null;
  components: StoredComponent[];
  auto_incidents: boolean;
}

export async function insertPage(db: Db, ownerId: string, v: PageValues): Promise<PageRow> {
  const row = await db
    .insertInto("status_pages")
    .values({ id: newId("spg"), owner_id: ownerId, ...v, components: jsonb(v.components) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return page(row);
}

export async function updatePage(db: Db, id: string, v: Partial<PageValues>): Promise<PageRow | undefined> {
  const { components, ...rest } = v;
  const row = await db
    .updateTable("status_pages")
    .set({ ...rest, ...(components ? { components: jsonb(components) } : {}), updated_at: new Date() })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  return row && page(row);
}

export async function findPage(db: Db, id: string): Promise<PageRow | undefined> {
  const row = await db.selectFrom("status_pages").selectAll().where("id", "=", id).executeTakeFirst();
  return row && page(row);
}

export async function findPageBySlug(db: Db, slug: string): Promise<PageRow | undefined> {
  const row = await db.selectFrom("status_pages").selectAll().where("slug", "=", slug).executeTakeFirst();
  return row && page(row);
}

/** Every page with a custom domain: domain → slug (the Host header map). */
export async function customDomains(db: Db): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom("status_pages")
    .select(["slug", "custom_domain"])
    .where("custom_domain", "is not", null)
    .execute();
  return new Map(rows.map((r) => [r.custom_domain as string, r.slug]));
}

export async function listPages(db: Db, ownerId: string, pg: { page: number; limit: number }) {
  const [items, total] = await Promise.all([
    db
      .selectFrom("status_pages")
      .selectAll()
      .where("owner_id", "=", ownerId)
      .orderBy("id", "desc")
      .limit(pg.limit)
      .offset((pg.page - 1) * pg.limit)
      .execute(),
    countPages(db, ownerId),
  ]);
  return { items: items.map(page), total };
}

export async function countPages(db: Db, ownerId: string): Promise<number> {
  const r = await db
    .selectFrom("status_pages")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** The slugs of the owner's pages (their cached renderings are dropped when the account goes). */
export async function slugsOf(db: Db, ownerId: string): Promise<string[]> {
  const rows = await db.selectFrom("status_pages").select("slug").where("owner_id", "=", ownerId).execute();
  return rows.map((r) => r.slug);
}

export async function deletePage(db: Db, id: string): Promise<void> {
  await db.deleteFrom("status_pages").where("id", "=", id).execute();
}

/** Pages that open incidents on their own (the auto-incident round). */
export async function autoPages(db: Db): Promise<PageRow[]> {
  const rows = await db.selectFrom("status_pages").selectAll().where("auto_incidents", "=", true).execute();
  return rows.map(page);
}

// ---- Incidents ----

export async function insertIncident(
  db: Db,
  v: {
    page_id: string;
    title: string;
    status: IncidentStatus;
    impact: IncidentImpact;
    monitor_id: string | null;
  },
  message: string,
): Promise<IncidentRow | undefined> {
  const now = new Date();
  const row = await db
    .insertInto("status_incidents")
    .values({ id: newId("inc"), ...v, resolved_at: v.status === "resolved" ? now : null })
    // An automatic incident already open for this page and monitor: none is added.
    .onConflict((oc) =>
      oc
        .columns(["page_id", "monitor_id"])
        .where(sql<boolean>`monitor_id is not null and resolved_at is null`)
        .doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
  if (!row) return undefined;
  await insertUpdate(db, row.id, v.status, message);
  return row;
}

export async function insertUpdate(db: Db, incidentId: string, status: IncidentStatus, message: string) {
  return db
    .insertInto("status_incident_updates")
    .values({ id: newId("iup"), incident_id: incidentId, status, message })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setIncidentStatus(db: Db, id: string, status: IncidentStatus): Promise<void> {
  const now = new Date();
  await db
    .updateTable("status_incidents")
    .set({ status, updated_at: now, resolved_at: status === "resolved" ? now : null })
    .where("id", "=", id)
    .execute();
}

export async function findIncident(db: Db, pageId: string, id: string): Promise<IncidentRow | undefined> {
  return db
    .selectFrom("status_incidents")
    .selectAll()
    .where("id", "=", id)
    .where("page_id", "=", pageId)
    .executeTakeFirst();
}

/** Open automatic incidents of a page: monitor id → incident id. */
export async function openAutoIncidents(db: Db, pageId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom("status_incidents")
    .select(["id", "monitor_id"])
    .where("page_id", "=", pageId)
    .where("monitor_id", "is not", null)
    .where("resolved_at", "is", null)
    .execute();
  return new Map(rows.map((r) => [r.monitor_id as string, r.id]));
}

/** The page's incidents, newest first, with their updates (newest first). */
export async function listIncidents(
  db: Db,
  pageId: string,
  pg: { page: number; limit: number },
): Promise<{ items: IncidentWithUpdates[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom("status_incidents")
      .selectAll()
      .where("page_id", "=", pageId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(pg.limit)
      .offset((pg.page - 1) * pg.limit)
      .execute(),
    db
      .selectFrom("status_incidents")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("page_id", "=", pageId)
      .executeTakeFirst(),
  ]);
  return { items: await withUpdates(db, rows), total: Number(count?.n ?? 0) };
}

/** The page's newest incidents with their updates, without the count a listing needs (a public rendering). */
export async function newestIncidents(db: Db, pageId: string, limit: number): Promise<IncidentWithUpdates[]> {
  const rows = await db
    .selectFrom("status_incidents")
    .selectAll()
    .where("page_id", "=", pageId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return withUpdates(db, rows);
}

export async function withUpdates(db: Db, rows: IncidentRow[]): Promise<IncidentWithUpdates[]> {
  if (rows.length === 0) return [];
  const updates = await db
    .selectFrom("status_incident_updates")
    .selectAll()
    .where(
      "incident_id",
      "in",
      rows.map((r) => r.id),
    )
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map((r) => ({ ...r, updates: updates.filter((u) => u.incident_id === r.id) }));
}

// ---- Maintenance ----

export async function insertMaintenance(
  db: Db,
  v: { page_id: string; title: string; description: string; starts_at: Date; ends_at: Date },
): Promise<MaintenanceRow> {
  return db
    .insertInto("status_maintenance")
    .values({ id: newId("smt"), ...v })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listMaintenance(db: Db, pageId: string, pg: { page: number; limit: number }) {
  const [items, count] = await Promise.all([
    db
      .selectFrom("status_maintenance")
      .selectAll()
      .where("page_id", "=", pageId)
      .orderBy("starts_at", "desc")
      .orderBy("id", "desc")
      .limit(pg.limit)
      .offset((pg.page - 1) * pg.limit)
      .execute(),
    db
      .selectFrom("status_maintenance")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("page_id", "=", pageId)
      .executeTakeFirst(),
  ]);
  return { items, total: Number(count?.n ?? 0) };
}

/** Entries not over by `now`, soonest first. */
export async function currentMaintenance(db: Db, pageId: string, now: Date): Promise<MaintenanceRow[]> {
  return db
    .selectFrom("status_maintenance")
    .selectAll()
    .where("page_id", "=", pageId)
    .where("ends_at", ">", now)
    .orderBy("starts_at")
    .limit(50)
    .execute();
}

export async function deleteMaintenance(db: Db, pageId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom("status_maintenance")
    .where("id", "=", id)
    .where("page_id", "=", pageId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
