import { z } from "@hono/zod-openapi";
import { MAX_DURATION_MINUTES, MAX_WINDOW_MONITORS, type MaintenanceWindow } from "./maintenance-service.js";

const time = (description: string) => z.string().openapi({ description, format: "date-time" });
const isoField = (description: string) =>
  z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 date-time with a zone (Z or ±hh:mm)" })
    .openapi({
      description,
      example: "2026-12-01T02:00:00Z",
    });

const titleField = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .refine((s) => [...s].length <= 100, "must be at most 100 characters")
  .openapi({ maxLength: 100, example: "Database upgrade" });

export const recurrenceSchema = z
  .strictObject({
    rrule: z
      .string()
      .min(1)
      .max(200)
      .openapi({
        description:
          "An RFC 5545 RRULE subset: FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, BYDAY (WEEKLY: MO,TH; MONTHLY: 1SU, " +
          "-1FR), BYMONTHDAY (MONTHLY, -1 = last day), COUNT or UNTIL. Any other part → 400 on " +
          "`body.recurrence.rrule` saying why.",
        example: "FREQ=WEEKLY;BYDAY=SU",
      }),
    start_local: z
      .string()
      .min(16)
      .max(16)
      .openapi({
        description:
          "The first date and the local start time of every occurrence, `YYYY-MM-DDTHH:MM`, in `time_zone`. " +
          "A time skipped by a DST change is taken with the offset before it (02:30 → 03:30); one that " +
          "occurs twice is the first.",
        example: "2026-12-06T02:00",
      }),
    time_zone: z.string().min(1).max(64).openapi({ description: "IANA time zone", example: "Europe/Berlin" }),
    duration_minutes: z
      .number()
      .int()
      .min(1)
      .max(MAX_DURATION_MINUTES)
      .openapi({
        description: `Each occurrence's length in real minutes, 1–${MAX_DURATION_MINUTES}`,
        example: 120,
      }),
  })
  .openapi("MaintenanceRecurrence");

const scopeField = z.enum(["monitor", "all"]).openapi({
  description:
    "`monitor` (default): the monitors in `monitor_ids`; `all`: every monitor of the caller, later ones too",
});
const monitorIdsField = z
  .array(z.string().min(1).max(64))
  .max(MAX_WINDOW_MONITORS)
  .openapi({ description: `The monitors, 1–${MAX_WINDOW_MONITORS} (scope monitor); left out for scope all` });

const timing = {
  starts_at: isoField("One-off: the start").optional(),
  ends_at: isoField("One-off: the end (after the start, at most 366 days later)").optional(),
  recurrence: recurrenceSchema.optional(),
};

export const windowCreateBody = z
  .strictObject({
    title: titleField,
    scope: scopeField.optional(),
    monitor_ids: monitorIdsField.optional(),
    ...timing,
  })
  .openapi("MaintenanceWindowCreate", {
    description:
      "Either `starts_at` and `ends_at` (one-off) or `recurrence`. Any other field → 400 `unknown_field`.",
  });

export const windowPatchBody = z
  .strictObject({
    title: titleField.optional(),
    scope: scopeField.optional(),
    monitor_ids: monitorIdsField.optional(),
    ...timing,
  })
  .openapi("MaintenanceWindowPatch", {
    description:
      "Omitted fields are unchanged. `recurrence` makes the window recurring, `starts_at`/`ends_at` one-off; " +
      "the result is checked as on creation.",
  });

export const windowSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    scope: z.enum(["monitor", "all"]),
    monitor_ids: z.array(z.string()),
    kind: z.enum(["once", "recurring"]),
    starts_at: time("One-off: the start").nullable(),
    ends_at: time("One-off: the end").nullable(),
    recurrence: recurrenceSchema.nullable(),
    active: z.boolean().openapi({ description: "A window of it is open now" }),
    upcoming: z
      .array(z.object({ starts_at: time("Start"), ends_at: time("End") }))
      .openapi({ description: "The open occurrence and the next ones, up to 5 within about a year" }),
    created_at: time("Created"),
    updated_at: time("Last changed"),
  })
  .openapi("MaintenanceWindow");

export const windowIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "mnt_0mhx3k2a9f1e2d3c4b5a6978" }),
});

export const toWindowView = (w: MaintenanceWindow) => ({
  id: w.id,
  title: w.title,
  scope: w.scope,
  monitor_ids: w.monitorIds,
  kind: w.recurrence ? ("recurring" as const) : ("once" as const),
  starts_at: w.startsAt?.toISOString() ?? null,
  ends_at: w.endsAt?.toISOString() ?? null,
  recurrence: w.recurrence,
  active: w.active,
  upcoming: w.upcoming.map((u) => ({
    starts_at: u.starts_at.toISOString(),
    ends_at: u.ends_at.toISOString(),
  })),
  created_at: w.created_at.toISOString(),
  updated_at: w.updated_at.toISOString(),
});
