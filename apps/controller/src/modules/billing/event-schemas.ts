import { z } from "zod";
import { hasUnstorableChars } from "../../lib/unstorable-text.js";

/**
 * The parts of Stripe's event objects the webhook handler reads, checked before anything is stored: a
 * signed event that lacks one (an API version we do not know, a hand-made test event) is answered 400
 * `validation_error` naming the field, never a 500 from deep inside a write. Only what is read is checked;
 * every other field may be anything (loose objects), so Stripe adding fields changes nothing.
 */

/** Text a `text` column can hold: U+0000 and lone surrogates are refused, like in requests. */
const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !hasUnstorableChars(s), "holds characters that cannot be stored");
const id = text(255);
/** A reference Stripe sends as an id, or expanded as the object with its id. */
const ref = z.union([id, z.looseObject({ id })]);
const metadata = z.record(z.string(), z.string()).nullish();
/** Unix seconds that make a valid date (up to 9999-12-31). */
const unixSeconds = z.number().int().min(0).max(253_402_300_799);
const amount = z
  .number()
  .int()
  .min(-(2 ** 53 - 1))
  .max(2 ** 53 - 1);

export const checkoutSessionObject = z.looseObject({
  client_reference_id: id.nullish(),
  metadata,
  customer: ref.nullish(),
  subscription: ref.nullish(),
});

export const subscriptionObject = z.looseObject({
  id,
  customer: ref,
  status: text(64),
  cancel_at_period_end: z.boolean().nullish(),
  metadata,
  items: z
    .looseObject({
      data: z.array(
        z.looseObject({ price: z.looseObject({ id }), current_period_end: unixSeconds.nullish() }),
      ),
    })
    .nullish(),
});

export const invoiceObject = z.looseObject({
  /** Absent on a preview of an upcoming invoice: nothing to store, acknowledged with a log line. */
  id: id.nullish(),
  customer: ref.nullish(),
  metadata,
  /** Nullable in Stripe's types, never absent from an invoice event: a missing one would store `draft`. */
  status: text(64),
  amount_paid: amount,
  amount_due: amount,
  currency: text(16),
  created: unixSeconds,
  hosted_invoice_url: text(2048).nullish(),
  parent: z
    .looseObject({ subscription_details: z.looseObject({ subscription: ref.nullish() }).nullish() })
    .nullish(),
});

/** What every event must have: its id (handled once) and its type. */
export const eventEnvelope = z.looseObject({ id, type: text(255) });

/** An event whose `data.object` has the shape `object`. */
export const eventOf = <T extends z.ZodType>(object: T) => z.looseObject({ data: z.looseObject({ object }) });
