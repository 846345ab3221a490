import type { ColumnType, Generated, RawBuilder } from "kysely";

/** One message to deliver on one channel; the payload's shape is the channel's (see modules/delivery). */
export interface DeliveryOutboxTable {
  id: string;
  channel: string;
  /** The address the channel delivers to: an email address, a webhook URL, … */
  destination: string;
  payload: ColumnType<unknown, RawBuilder<unknown> | string, RawBuilder<unknown> | string>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  attempts: Generated<number>;
  sent_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_error: string | null;
}

export interface DeliveryTables {
  delivery_outbox: DeliveryOutboxTable;
}
