import { messages } from "../../i18n.js";

/**
 * A status page's incidents, maintenance entries and subscribers as the API answers them (the same in both forms; only the
 * lists' page-size parameter differs: `pageSize`, which `components/paged-list.tsx` sends), and the incident statuses' names.
 */
export const incidentStatuses = ["investigating", "identified", "monitoring", "resolved"] as const;
export type IncidentStatus = (typeof incidentStatuses)[number];

const names = messages({
  en: {
    investigating: "Investigating",
    identified: "Identified",
    monitoring: "Monitoring",
    resolved: "Resolved",
  },
  cn: { investigating: "调查中", identified: "已确认原因", monitoring: "观察中", resolved: "已解决" },
  tw: { investigating: "調查中", identified: "已確認原因", monitoring: "觀察中", resolved: "已解決" },
});

/** An incident status in the current locale. */
export const statusName = (s: IncidentStatus) => names(s);

export interface IncidentUpdate {
  id: string;
  status: IncidentStatus;
  message: string;
  created_at: string;
}

export interface Incident {
  id: string;
  page_id: string;
  title: string;
  status: IncidentStatus;
  impact: "none" | "minor" | "major" | "critical";
  /** The monitor whose going down opened it (automatic incidents), else null. */
  monitor_id: string | null;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  /** Newest first. */
  updates: IncidentUpdate[];
}

export interface Subscriber {
  id: string;
  type: "email" | "webhook";
  /** The address, or the webhook's URL. */
  destination: string;
  /** An email subscriber followed the mailed link (webhooks are confirmed when added). */
  confirmed: boolean;
  created_at: string;
}

/** One of a page's own maintenance entries: shown on the public page until it ends. */
export interface Maintenance {
  id: string;
  page_id: string;
  title: string;
  /** "" when none was given. */
  description: string;
  starts_at: string;
  ends_at: string;
  created_at: string;
}

/** Open incidents first, each group by its last update, newest first. */
export const openFirst = (items: Incident[]) =>
  [...items].sort(
    (a, b) =>
      Number(a.status === "resolved") - Number(b.status === "resolved") ||
      Date.parse(b.updated_at) - Date.parse(a.updated_at),
  );
