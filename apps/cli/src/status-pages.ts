import { type Api, call } from "./api-client.js";
import { type Invocation, listFlag, stringFlag } from "./commands.js";
import { ApiError, UsageError } from "./errors.js";
import { table } from "./table.js";

/**
 * Status pages (docs/status-pages.md): `status-pages list|create|delete`, `status-pages incident` to
 * open an incident on one and `status-pages update` to post its news (resolved resolves it). The API is the
 * same in both forms; only the list's page size is named apart.
 */

interface StatusPage {
  id: string;
  slug: string;
  title: string;
  components: { name: string; monitor_ids: string[] }[];
  public_url: string;
}

interface Incident {
  id: string;
  page_id: string;
  title: string;
  status: string;
}

const INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved"] as const;

/** The page's public address: the API's `public_url`, on the deployment when it is a bare path. */
const publicUrl = (api: Api, p: StatusPage) =>
  p.public_url.startsWith("/") ? api.url + p.public_url : p.public_url;

/** `create`'s flags, checked before any request: the slug and title, and the monitors' ids. */
export function statusPageFlags(v: Invocation["values"]): {
  slug: string;
  title: string;
  monitors: string[];
} {
  const slug = stringFlag(v, "slug");
  const title = stringFlag(v, "title");
  if (!slug || !title) throw new UsageError("create needs --slug and --title", "status-pages");
  return { slug, title, monitors: listFlag(v, "monitors") ?? [] };
}

/** The body of `incident` from its options. */
export function incidentBody(v: Invocation["values"]): Record<string, unknown> {
  const title = stringFlag(v, "title");
  const message = stringFlag(v, "message");
  if (!title || !message) throw new UsageError("incident needs --title and --message", "status-pages");
  const status = incidentStatus(v);
  return { title, message, ...(status !== undefined ? { status } : {}) };
}

/** `--status`, one of the incident statuses when given. */
function incidentStatus(v: Invocation["values"]): string | undefined {
  const status = stringFlag(v, "status");
  if (status !== undefined && !(INCIDENT_STATUSES as readonly string[]).includes(status))
    throw new UsageError(`--status is ${INCIDENT_STATUSES.join(", ")}, not ${status}`, "status-pages");
  return status;
}

/** `update`'s flags, checked before any request: the incident, its new status and the update's text. */
export function updateFlags(v: Invocation["values"]): { incident: string; status: string; message: string } {
  const incident = stringFlag(v, "incident");
  const status = incidentStatus(v);
  const message = stringFlag(v, "message");
  if (!incident || !status || !message)
    throw new UsageError("update needs --incident, --status and --message", "status-pages");
  return { incident, status, message };
}

/** The id of `delete`, `incident` and `update`. */
function pageId(v: Invocation["values"]): string {
  const id = stringFlag(v, "id");
  if (!id) throw new UsageError("--id <page id> is required", "status-pages");
  return id;
}

/**
 * One component per monitor, named as the monitor is. An id the account has no monitor for keeps the id as
 * its name: the API then refuses it by its field (`body.components.<i>.monitor_ids.0`).
 */
async function components(api: Api, ids: string[]) {
  return Promise.all(
    ids.map(async (id) => {
      const name = await call<{ name: string }>(api, `/v1/monitors/${encodeURIComponent(id)}`).then(
        (m) => m.name,
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return id;
          throw err;
        },
      );
      return { name, monitor_ids: [id] };
    }),
  );
}

export async function statusPages(api: Api, inv: Invocation, out: (s: string) => void): Promise<void> {
  const action = inv.arg;
  const json = inv.values.json === true;
  if (action === "list") {
    const data = await call<{ items: StatusPage[] }>(api, "/v1/status-pages", {
      query: api.form === "a" ? { limit: 20 } : { per_page: 20 },
    });
    if (json) return out(JSON.stringify(data, null, 2));
    if (data.items.length === 0) return out("no status pages");
    const rows = data.items.map((p) => [
      p.id,
      p.slug,
      p.title,
      String(p.components.length),
      publicUrl(api, p),
    ]);
    return out(table(["ID", "SLUG", "TITLE", "COMPONENTS", "URL"], rows));
  }
  if (action === "create") {
    const flags = statusPageFlags(inv.values);
    const p = await call<StatusPage>(api, "/v1/status-pages", {
      method: "POST",
      body: { slug: flags.slug, title: flags.title, components: await components(api, flags.monitors) },
    });
    return out(json ? JSON.stringify(p, null, 2) : `created ${p.id}: ${publicUrl(api, p)}`);
  }
  if (action === "delete") {
    const id = pageId(inv.values);
    await call(api, `/v1/status-pages/${encodeURIComponent(id)}`, { method: "DELETE" });
    return out(`deleted ${id}`);
  }
  if (action === "incident") {
    const id = pageId(inv.values);
    const body = incidentBody(inv.values);
    const i = await call<Incident>(api, `/v1/status-pages/${encodeURIComponent(id)}/incidents`, {
      method: "POST",
      body,
    });
    return out(json ? JSON.stringify(i, null, 2) : `opened ${i.id} on ${i.page_id} (${i.status})`);
  }
  if (action === "update") {
    const id = pageId(inv.values);
    const flags = updateFlags(inv.values);
    const path = `/v1/status-pages/${encodeURIComponent(id)}/incidents/${encodeURIComponent(flags.incident)}/updates`;
    const i = await call<Incident>(api, path, {
      method: "POST",
      body: { status: flags.status, message: flags.message },
    });
    return out(json ? JSON.stringify(i, null, 2) : `updated ${i.id} (${i.status})`);
  }
  throw new UsageError(
    `unknown action ${action ?? ""}: list, create, delete, incident or update`,
    "status-pages",
  );
}
