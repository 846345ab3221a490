import { z } from "@hono/zod-openapi";

/** Bounds of a page and what it holds (documented in docs/status-pages.md). */
export const LIMITS = {
  components: 50,
  monitorsPerComponent: 20,
  pagesPerAccount: 20,
  openEntries: 200,
  subscribersPerPage: 10_000,
  /** Confirmation mails asked for by one client (IPv6: its /64) per hour, over every page. */
  subscribeMailsPerClientHour: 10,
  /** Confirmation mails to one mailbox (`+tags` folded) per hour, over every page. */
  subscribeMailsPerAddressHour: 3,
} as const;

const iso = z.string().openapi({ format: "date-time" });
export const incidentStatus = z.enum(["investigating", "identified", "monitoring", "resolved"]);
export const incidentImpact = z.enum(["none", "minor", "major", "critical"]);

const slug = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "lower-case letters, digits and inner hyphens")
  .openapi({ example: "acme" });
const title = z.string().trim().min(1).max(120);
const logoUrl = z
  .string()
  .max(100_000)
  .regex(
    /^(https?:\/\/[^\s"'<>]+|data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=]+)$/,
    "an http(s) URL or a data:image/...;base64 URL",
  )
  .nullable()
  .openapi({ description: "Shown in the page's header. The page's CSP shows same-origin and data: images." });
const customDomain = z
  .string()
  .max(253)
  .transform((s) => s.toLowerCase())
  .pipe(
    z.string().regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "a host name"),
  )
  .nullable()
  .openapi({ description: "A host name that serves this page at `/` (by the request's Host header)." });
const component = z.strictObject({
  name: z.string().trim().min(1).max(100),
  monitor_ids: z.array(z.string().max(64)).min(1).max(LIMITS.monitorsPerComponent),
});

export const pageBody = z
  .strictObject({
    slug,
    title,
    logo_url: logoUrl.optional(),
    custom_domain: customDomain.optional(),
    components: z.array(component).max(LIMITS.components).optional(),
    auto_incidents: z.boolean().optional().openapi({
      description:
        "Open an incident when a component's monitor goes down, resolve it when it is up (default true)",
    }),
  })
  .openapi("StatusPageCreate");
export const pagePatch = pageBody.partial().openapi("StatusPagePatch");

export const pageView = z
  .object({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    logo_url: z.string().nullable(),
    custom_domain: z.string().nullable(),
    components: z.array(z.object({ name: z.string(), monitor_ids: z.array(z.string()) })),
    auto_incidents: z.boolean(),
    public_url: z.string(),
    created_at: iso,
    updated_at: iso,
  })
  .openapi("StatusPage");

export const incidentBody = z
  .strictObject({
    title: z.string().trim().min(1).max(200),
    status: incidentStatus.optional(),
    impact: incidentImpact.optional(),
    message: z.string().trim().min(1).max(5000),
  })
  .openapi("IncidentCreate");
export const updateBody = z
  .strictObject({ status: incidentStatus, message: z.string().trim().min(1).max(5000) })
  .openapi("IncidentUpdateCreate");

const updateView = z.object({ id: z.string(), status: incidentStatus, message: z.string(), created_at: iso });
export const incidentView = z
  .object({
    id: z.string(),
    page_id: z.string(),
    title: z.string(),
    status: incidentStatus,
    impact: incidentImpact,
    monitor_id: z.string().nullable(),
    created_at: iso,
    updated_at: iso,
    resolved_at: iso.nullable(),
    updates: z.array(updateView),
  })
  .openapi("Incident");

export const maintenanceBody = z
  .strictObject({
    title: z.string().trim().min(1).max(200),
    description: z.string().max(5000).optional(),
    starts_at: z.iso.datetime({ offset: true }),
    ends_at: z.iso.datetime({ offset: true }),
  })
  .openapi("MaintenanceCreate");
export const maintenanceView = z
  .object({
    id: z.string(),
    page_id: z.string(),
    title: z.string(),
    description: z.string(),
    starts_at: iso,
    ends_at: iso,
    created_at: iso,
  })
  .openapi("Maintenance");

export const webhookSubscriberBody = z
  .strictObject({ url: z.url({ protocol: /^https?$/ }).max(2000) })
  .openapi("WebhookSubscriberCreate");
export const subscriberView = z
  .object({
    id: z.string(),
    type: z.enum(["email", "webhook"]),
    destination: z.string(),
    confirmed: z.boolean(),
    created_at: iso,
  })
  .openapi("StatusSubscriber");
export const newWebhookSubscriber = subscriberView
  .extend({ secret: z.string().openapi({ description: "Standard Webhooks signing secret; shown once" }) })
  .openapi("StatusSubscriberCreated");
export const emailSubscribeBody = z.strictObject({ email: z.email().max(254) }).openapi("StatusSubscribe");

export const pageIdParam = z.object({ id: z.string().max(64) });
export const incidentParams = z.object({ id: z.string().max(64), incident_id: z.string().max(64) });
export const maintenanceParams = z.object({ id: z.string().max(64), maintenance_id: z.string().max(64) });
export const subscriberParams = z.object({ id: z.string().max(64), subscriber_id: z.string().max(64) });
export const slugParam = z.object({ slug: z.string().max(64) });

/** The public JSON of a page. */
export const publicView = z
  .object({
    page: z.object({ slug: z.string(), title: z.string(), logo_url: z.string().nullable() }),
    status: z.enum(["operational", "degraded", "major_outage", "maintenance", "unknown"]),
    components: z.array(
      z.object({
        name: z.string(),
        status: z.enum(["operational", "degraded", "major_outage", "maintenance", "unknown"]),
        uptime_90d_percent: z.number().nullable(),
        daily_uptime_percent: z.array(z.number().nullable()).openapi({
          description: "90 UTC days, oldest first (`days.from` to `days.to`): uptime %, null without runs",
        }),
      }),
    ),
    days: z.object({ from: z.string(), to: z.string() }),
    incidents: z.array(incidentView.omit({ page_id: true, monitor_id: true })),
    maintenance: z.array(maintenanceView.omit({ page_id: true, created_at: true })),
    generated_at: iso,
  })
  .openapi("PublicStatusPage");
