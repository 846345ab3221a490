import { z } from "@hono/zod-openapi";
import { channelTypes } from "./channels/registry.js";
import type { ChannelType } from "./channels/types.js";
import { SECRET_MASK } from "./types.js";

// ---- parts ----

const charCount = (s: string) => [...s].length;

const nameField = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .refine((s) => charCount(s) <= 100, "must be at most 100 characters")
  .openapi({ maxLength: 100, example: "On-call" });

const idString = z.string().min(1).max(64);

const time = (description: string) => z.string().openapi({ description, format: "date-time" });

const channelExample = "chn_0mhx3k2a9f1e2d3c4b5a6978";
const policyExample = "pol_0mhx3k2a9f1e2d3c4b5a6978";
const eventExample = "evt_0mhx3k2a9f1e2d3c4b5a6978";

export const idParam = z.object({
  id: idString.openapi({ param: { name: "id", in: "path" }, example: channelExample }),
});
export const policyIdParam = z.object({
  id: idString.openapi({ param: { name: "id", in: "path" }, example: policyExample }),
});
export const eventIdParam = z.object({
  id: idString.openapi({ param: { name: "id", in: "path" }, example: eventExample }),
});

/** Channels and policies: one page of 100 holds what a client that does not page expects (every item). */
/** Page sizes of the lists when the query names none: channels and policies whole, events by 20. */
export const WHOLE_LIST = 100;
export const EVENTS_PAGE = 20;

// ---- channels ----

export const channelTypeField = z
  .enum(channelTypes as [ChannelType, ...ChannelType[]])
  .openapi({ description: channelTypes.join(", "), example: "webhook" });

/** Each type's settings; (secret) ones are sealed at rest and answered as the mask. */
const CONFIG_KEYS =
  "email: `to` (1–10 addresses). webhook: `url` (http/https), `secret?` (secret; `whsec_` + base64 of 24–64 " +
  "bytes, Standard Webhooks signing; left out on creation, one is generated and answered once). slack: " +
  "`webhook_url` (secret). dingtalk: `webhook_url` (secret; " +
  "…/robot/send?access_token=…), `secret?` (secret; the robot's `SEC…` signing secret). feishu: " +
  "`webhook_url` (secret; …/open-apis/bot/v2/hook/…), `secret?` (secret). wecom: `webhook_url` (secret; " +
  "…/cgi-bin/webhook/send?key=…). pagerduty: `routing_key` (secret; 32 characters), `severity?` " +
  "(critical, error, warning, info). sms (Twilio-compatible): `account_sid`, `auth_token` (secret), `from` " +
  "and `to` (1–5) as E.164 numbers. Any other key → 400 `unknown_field`; a bad value → 400 on " +
  "`body.config.<key>`. The schemas AlertChannelConfigEmail, …Webhook, … list them.";

export const channelCreateBody = z
  .strictObject({
    name: nameField,
    type: channelTypeField,
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description: `The type's settings, checked per type. ${CONFIG_KEYS}`,
        example: {
          url: "https://hooks.example.com/vantage",
          secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        },
      }),
  })
  .openapi("AlertChannelCreate", { description: "Any other field → 400 `unknown_field`." });

export const channelPatchBody = z
  .strictObject({
    name: nameField.optional(),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description:
          `Merged into the stored settings key by key: \`null\` removes an optional key, a secret key sent as ` +
          `\`"${SECRET_MASK}"\` keeps its stored value (so a channel read can be sent back as it is), any other ` +
          "value replaces it. The result is checked as on creation.",
      }),
  })
  .openapi("AlertChannelPatch", {
    description: "Omitted fields are unchanged; the type cannot change; any other field → 400.",
  });

/** The notifier's view of a channel (modules/alerts/deliver.ts), the same in both forms. */
const channelDeliverySchema = z
  .object({
    failing: z.boolean().openapi({
      description:
        "True after a send failed in a way worth retrying (no answer, 408, 429, 5xx) and until one passes. " +
        "Meanwhile its alerts wait in order and one (the oldest) is tried every few seconds: 1 s, 2 s, " +
        "then every 3–4 s, every 22.5–30 s once failing for 10 minutes. The first that passes sends " +
        "everything queued at once, oldest first.",
    }),
    failing_since: time("When the current run of failures began; null when not failing").nullable(),
    next_attempt_at: time("While failing: when it is tried next; null when not failing").nullable(),
    last_error: z.string().nullable().openapi({
      description: "The last failed send's reason (kept after it recovers)",
      example: "HTTP 503",
    }),
    last_error_at: time("When the last failed send was made").nullable(),
    queued: z
      .number()
      .int()
      .openapi({ description: "Alerts waiting to be sent on this channel", example: 0 }),
  })
  .openapi("AlertChannelDelivery");

export const channelSchema = z
  .object({
    id: z.string().openapi({ example: channelExample }),
    name: z.string(),
    type: channelTypeField,
    config: z.record(z.string(), z.unknown()).openapi({
      description: `The settings; every secret one that is set shows \`"${SECRET_MASK}"\`, never its value`,
      example: { url: "https://hooks.example.com/vantage", secret: SECRET_MASK },
    }),
    created_at: time("ISO 8601 UTC"),
    updated_at: time("ISO 8601 UTC"),
    delivery: channelDeliverySchema,
  })
  .openapi("AlertChannel");

/** The creation answer: the channel, and the secret settings the service made for it, this once. */
export const createdChannelSchema = channelSchema
  .extend({
    generated: z
      .record(z.string(), z.string())
      .optional()
      .openapi({
        description:
          "Only when the service made secret settings the request left out (a webhook channel without " +
          "`config.secret` gets a `whsec_` signing secret): their values, shown here once and never again " +
          "(`config` shows them masked). Absent when the request gave every secret itself.",
        example: { secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
      }),
  })
  .openapi("AlertChannelCreated");

const attemptSchema = z
  .object({
    at: time("When the attempt was made"),
    ok: z.boolean(),
    status: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The vendor's HTTP status; null without one" }),
    reason: z.string().nullable().openapi({ description: "Why it failed; null when it did not" }),
  })
  .openapi("AlertDeliveryAttempt");

export const testResultSchema = z
  .object({
    ok: z.boolean().openapi({ description: "The vendor accepted the message" }),
    status: z.number().int().nullable().openapi({
      description: "The vendor's HTTP status; null without an answer, and for email (queued)",
    }),
    reason: z.string().nullable().openapi({ description: "Why it failed; null when it did not" }),
    attempts: z
      .array(attemptSchema)
      .optional()
      .openapi({ description: "One per request when the channel sends several (SMS: one per number)" }),
  })
  .openapi("AlertChannelTestResult");

// ---- policies ----

const channelIdsField = z
  .array(idString)
  .max(20)
  .openapi({
    description: "The caller's channel ids, at most 20; repeats are dropped",
    example: [channelExample],
  });

export const policyScopes = ["monitor", "all"] as const;
const policyScope = z.enum(policyScopes);

const reminderField = z
  .number()
  .int()
  .min(5)
  .max(1440)
  .nullable()
  .openapi({ description: "Minutes between reminders while the monitor stays down, 5–1440; null: none" });

/** Escalation steps of a policy (issue #29 item 6). */
export const MAX_ESCALATION_STEPS = 5;

const escalationField = z
  .array(
    z.strictObject({
      after_minutes: z.number().int().min(1).max(1440).openapi({
        description: "Minutes after the down alert, while nobody has acknowledged it, 1–1440",
        example: 15,
      }),
      channel_ids: channelIdsField.min(1).openapi({ description: "The caller's channels to notify, 1–20" }),
    }),
  )
  .max(MAX_ESCALATION_STEPS)
  .openapi({
    description:
      "Vantage extension, both forms: escalation steps, up to 5 with rising `after_minutes`. While a down " +
      "alert stays unacknowledged and the monitor down, each step notifies its channels once, " +
      "`after_minutes` after the alert. Acknowledging (API or the signed link in the message) stops the " +
      "steps and the reminders. Default none",
  });

export const policyCreateBody = z
  .strictObject({
    name: nameField,
    monitor_id: idString.optional().openapi({
      description: "One of the caller's monitors; required unless `scope` is `all`, refused when it is",
      example: "mon_0mhx3k2a9f1e2d3c4b",
    }),
    scope: policyScope.optional().openapi({
      description:
        "Vantage extension, both forms. `monitor` (the default): the monitor `monitor_id` names; `all`: " +
        "every monitor of the caller, those created later included (`monitor_id` is then omitted)",
    }),
    channel_ids: channelIdsField.optional().openapi({ description: "Default none" }),
    on_down: z
      .boolean()
      .optional()
      .openapi({ description: "Alert when the monitor goes down; default true" }),
    on_up: z.boolean().optional().openapi({ description: "Alert when it is up again; default true" }),
    reminder_minutes: reminderField.optional().openapi({ description: "Default null (no reminders)" }),
    escalation: escalationField.optional(),
  })
  .openapi("AlertPolicyCreate", { description: "Any other field → 400 `unknown_field`." });

export const policyPatchBody = z
  .strictObject({
    name: nameField.optional(),
    channel_ids: channelIdsField.optional().openapi({ description: "Replaces the list" }),
    on_down: z.boolean().optional(),
    on_up: z.boolean().optional(),
    reminder_minutes: reminderField.optional(),
    escalation: escalationField.optional().openapi({ description: "Replaces the steps" }),
  })
  .openapi("AlertPolicyPatch", {
    description: "Omitted fields are unchanged; the monitor and scope cannot change; any other field → 400.",
  });

export const policySchema = z
  .object({
    id: z.string().openapi({ example: policyExample }),
    name: z.string(),
    monitor_id: z
      .string()
      .nullable()
      .openapi({ description: "The policy's monitor; null when `scope` is `all`" }),
    scope: policyScope.openapi({
      description:
        "Vantage extension, both forms: `monitor` (one monitor) or `all` (every monitor of the owner)",
    }),
    channel_ids: z.array(z.string()),
    on_down: z.boolean(),
    on_up: z.boolean(),
    reminder_minutes: z.number().int().nullable(),
    escalation: z
      .array(z.object({ after_minutes: z.number().int(), channel_ids: z.array(z.string()) }))
      .openapi({ description: "Vantage extension: escalation steps (see AlertPolicyCreate)" }),
    created_at: time("ISO 8601 UTC"),
    updated_at: time("ISO 8601 UTC"),
  })
  .openapi("AlertPolicy");

const monitorFilter = idString.optional().openapi({ description: "Only this monitor's" });

/** The policy list's filter (its page fields come from http/route-kit.ts). */
export const policyFilters = { monitor_id: monitorFilter };

// ---- events ----

export const eventTypes = ["down", "up", "reminder", "escalation", "test", "monitor_stale"] as const;

const evidenceProbe = z.object({
  success: z.boolean(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  detail: z
    .record(z.string(), z.unknown())
    .nullable()
    .openapi({
      description:
        "The probe's result detail (mtr: `hops` with loss and round-trip times, `reached`; traceroute: `hops`, " +
        "`reached`; dns: `answers`, `rcode`)",
    }),
});

const eventDetail = z
  .object({
    from: z.string().optional().openapi({ description: "The monitor's state before: unknown, up or down" }),
    to: z.string().optional().openapi({ description: "Its state after" }),
    slot: time("The run (slot) that changed the state").optional(),
    nodes: z
      .array(z.object({ node_id: z.string(), error_code: z.string().nullable() }))
      .optional()
      .openapi({ description: "The nodes that failed that run (down events)" }),
    evidence: z
      .array(
        z.object({
          node_id: z.string(),
          host: z.string().openapi({ description: "The target's host the probes reached for" }),
          mtr: evidenceProbe
            .nullable()
            .optional()
            .openapi({
              description:
                "The node's mtr to the host (a few rounds: per hop `ip`, `loss_pct`, round-trip times); null " +
                "where the node does not offer mtr and traced instead (absent on events from before mtr)",
            }),
          traceroute: evidenceProbe.nullable().openapi({
            description: "The node's traceroute, where it does not offer mtr; null when mtr ran",
          }),
          dns: evidenceProbe.nullable().openapi({ description: "null when the target is an IP address" }),
        }),
      )
      .optional()
      .openapi({
        description:
          "Extension, both forms, down events: evidence from each failing node (up to 5), run at once when " +
          "the monitor went down: an mtr to the target's host (a traceroute on nodes without mtr) and an `A` " +
          "query for its name through " +
          "the node's resolver, as the probes returned them (an error where one could not run). Absent when " +
          "none was collected within 20 s (the event then goes out without it)",
      }),
    reason: z
      .enum(["no_nodes", "scheduler_behind", "paused_by_system"])
      .optional()
      .openapi({
        description:
          "Extension, both forms, monitor_stale events: why no run completed for two intervals (the " +
          "monitor's `state_reason`)",
      }),
    after_maintenance: z
      .string()
      .optional()
      .openapi({
        description:
          "Extension, both forms, down events: the maintenance window that muted the change to down; the " +
          "event was made when the window ended with the monitor still down",
      }),
  })
  .catchall(z.unknown())
  .openapi("AlertEventDetail");

export const eventSchema = z
  .object({
    id: z.string().openapi({ example: eventExample }),
    policy_id: z.string(),
    monitor_id: z.string(),
    type: z.enum(eventTypes),
    created_at: time("ISO 8601 UTC"),
    detail: eventDetail,
    acknowledged_at: time("Extension: when the down alert was acknowledged; null until then").nullable(),
    acknowledged_by: z.string().nullable().openapi({
      description: "Extension: who acknowledged it, a user id or `link` (the signed link in a message)",
    }),
  })
  .openapi("AlertEvent");

const deliverySchema = z
  .object({
    channel_id: z.string(),
    status: z.enum(["pending", "sent", "failed"]).openapi({
      description: "pending: not sent yet or to be tried again; sent; failed: given up",
    }),
    attempts: z.number().int(),
    sent_at: time("When it was delivered").nullable(),
    last_error: z.string().nullable(),
    log: z.array(attemptSchema).openapi({ description: "Every attempt, oldest first" }),
  })
  .openapi("AlertDelivery");

export const eventWithDeliveries = eventSchema
  .extend({ deliveries: z.array(deliverySchema) })
  .openapi("AlertEventWithDeliveries");

/** The event list's filters (its page fields come from http/route-kit.ts). */
export const eventFilters = {
  monitor_id: monitorFilter,
  type: z.enum(eventTypes).optional().openapi({ description: "down, up, reminder, test or monitor_stale" }),
};
