import type * as repo from "./repo.js";
import type { Snapshot } from "./snapshot.js";

/** Timestamps as ISO 8601 UTC, whatever the driver gave. */
export const iso = (v: Date | string) => new Date(v).toISOString();
const isoOrNull = (v: Date | string | null) => (v === null ? null : iso(v));

/** The same shapes in both forms (a documented extension: the spec has no status pages). */
export function toPage(p: repo.PageRow, publicBase: string) {
  return {
    id: p.id,
    slug: p.slug,
    title: p.title,
    logo_url: p.logo_url,
    custom_domain: p.custom_domain,
    components: p.components.map((c) => ({ name: c.name, monitor_ids: c.monitor_ids })),
    auto_incidents: p.auto_incidents,
    public_url: `${publicBase}/status/${p.slug}`,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

export function toIncident(i: repo.IncidentWithUpdates) {
  return {
    id: i.id,
    page_id: i.page_id,
    title: i.title,
    status: i.status,
    impact: i.impact,
    monitor_id: i.monitor_id,
    created_at: iso(i.created_at),
    updated_at: iso(i.updated_at),
    resolved_at: isoOrNull(i.resolved_at),
    updates: i.updates.map((u) => ({
      id: u.id,
      status: u.status,
      message: u.message,
      created_at: iso(u.created_at),
    })),
  };
}

export function toMaintenance(m: repo.MaintenanceRow) {
  return {
    id: m.id,
    page_id: m.page_id,
    title: m.title,
    description: m.description,
    starts_at: iso(m.starts_at),
    ends_at: iso(m.ends_at),
    created_at: iso(m.created_at),
  };
}

export function toSubscriber(s: repo.SubscriberRow) {
  return {
    id: s.id,
    type: s.kind,
    destination: s.destination,
    confirmed: s.confirmed_at !== null,
    created_at: iso(s.created_at),
  };
}

/** The public JSON: nothing of the owner, the monitors' ids or targets. */
export function toPublic(s: Snapshot) {
  return {
    page: { slug: s.page.slug, title: s.page.title, logo_url: s.page.logo_url },
    status: s.status,
    components: s.components.map((c) => ({
      name: c.name,
      status: c.status,
      uptime_90d_percent: c.uptime_90d_percent,
      daily_uptime_percent: c.days.map((d) => d.uptime_percent),
    })),
    days: { from: s.components[0]?.days[0]?.date ?? "", to: s.components[0]?.days.at(-1)?.date ?? "" },
    incidents: s.incidents.map((i) => {
      const { page_id: _page, monitor_id: _monitor, ...view } = toIncident(i);
      return view;
    }),
    maintenance: s.maintenance.map((m) => ({
      id: m.id,
      title: m.title,
      description: m.description,
      starts_at: iso(m.starts_at),
      ends_at: iso(m.ends_at),
    })),
    generated_at: s.generatedAt.toISOString(),
  };
}
