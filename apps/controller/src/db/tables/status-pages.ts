import type { ColumnType } from "kysely";

type Json<T> = ColumnType<T, string, string>;
type Time = ColumnType<Date, Date | string, Date | string>;
type NullableTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Created = ColumnType<Date, Date | string | undefined, never>;
type Updated = ColumnType<Date, Date | string | undefined, Date | string>;

export type IncidentStatus = "investigating" | "identified" | "monitoring" | "resolved";
export type IncidentImpact = "none" | "minor" | "major" | "critical";
export type SubscriberKind = "email" | "webhook";

/** One component of a page: a monitor (one id) or a group of monitors, shown as one row. */
export interface StoredComponent {
  name: string;
  monitor_ids: string[];
}

export interface StatusPagesTable {
  id: string;
  owner_id: string;
  slug: string;
  title: string;
  logo_url: string | null;
  custom_domain: string | null;
  components: Json<StoredComponent[]>;
  auto_incidents: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Created;
  updated_at: Updated;
}

export interface StatusIncidentsTable {
  id: string;
  page_id: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  /** The monitor whose down state opened it (automatic incidents); null for one opened by hand. */
  monitor_id: string | null;
  created_at: Created;
  updated_at: Updated;
  resolved_at: NullableTime;
}

export interface StatusIncidentUpdatesTable {
  id: string;
  incident_id: string;
  status: IncidentStatus;
  message: string;
  created_at: Created;
}

export interface StatusMaintenanceTable {
  id: string;
  page_id: string;
  title: string;
  description: ColumnType<string, string | undefined, string>;
  starts_at: Time;
  ends_at: Time;
  created_at: Created;
}

export interface StatusSubscribersTable {
  id: string;
  page_id: string;
  kind: SubscriberKind;
  /** The email address, or the webhook's URL. */
  destination: string;
  /** Webhooks: the signing secret, sealed with VANTAGE_SECRET_KEY. */
  secret_sealed: string | null;
  /** SHA-256 of the subscriber's token (confirmation and unsubscribe links). */
  token_hash: string;
  confirmed_at: NullableTime;
  created_at: Created;
}

export interface StatusWebhookDeliveriesTable {
  id: string;
  subscriber_id: string;
  /** The JSON body; signed when sent (Standard Webhooks), so a retry carries a fresh timestamp. */
  body: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  sent_at: NullableTime;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Created;
}

export interface StatusPageTables {
  status_pages: StatusPagesTable;
  status_incidents: StatusIncidentsTable;
  status_incident_updates: StatusIncidentUpdatesTable;
  status_maintenance: StatusMaintenanceTable;
  status_subscribers: StatusSubscribersTable;
  status_webhook_deliveries: StatusWebhookDeliveriesTable;
}
