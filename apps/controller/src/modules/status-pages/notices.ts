import type { IncidentStatus } from "../../db/tables/status-pages.js";
import type * as repo from "./repo.js";
import { iso } from "./views.js";

/** What subscribers are told of an incident's news: a mail's subject and text, and the webhook's JSON body. */
export function incidentNotice(
  p: repo.PageRow,
  incident: repo.IncidentRow,
  update: { status: IncidentStatus; message: string },
  opened: boolean,
  publicBase: string,
) {
  const url = `${publicBase}/status/${p.slug}`;
  const subject = `[${p.title}] ${opened ? "New incident" : `Incident ${update.status}`}: ${incident.title}`;
  const text = `${incident.title}\nStatus: ${update.status}\n\n${update.message}\n\n${url}`;
  const webhookBody = JSON.stringify({
    type: opened ? "incident.opened" : "incident.updated",
    timestamp: new Date().toISOString(),
    data: {
      page: { slug: p.slug, title: p.title, url },
      incident: {
        id: incident.id,
        title: incident.title,
        status: update.status,
        impact: incident.impact,
        created_at: iso(incident.created_at),
      },
      update: { status: update.status, message: update.message },
    },
  });
  return { subject, text, webhookBody };
}
