import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { IncidentImpact, IncidentStatus, StoredComponent } from "../../db/tables/status-pages.js";
import { ApiError, fieldError, notFound } from "../../http/errors.js";
import {
  consumeAll,
  dbRateLimitStore,
  ipBucket,
  mailboxBucket,
  RateLimiter,
} from "../../http/rate-limit/index.js";
import { assertPublicUrl } from "../../lib/public-url.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { DeliveryService } from "../delivery/index.js";
import type { MonitorStatusReader } from "../monitors/index.js";
import { incidentNotice } from "./notices.js";
import * as repo from "./repo.js";
import { LIMITS } from "./schemas.js";
import { buildSnapshot, monitorsInMaintenance, type Snapshot, type WindowSource } from "./snapshot.js";

export interface StatusPagesDeps {
  db: Kysely<Database>;
  log: Logger;
  monitors: MonitorStatusReader;
  delivery: DeliveryService;
  /** Seals webhook subscribers' secrets; undefined without VANTAGE_SECRET_KEY (webhooks refused). */
  box: SecretBox | undefined;
  /** VANTAGE_ALLOW_PRIVATE_TARGETS: without it a webhook URL naming a private address is refused (422). */
  allowPrivate: boolean;
  /** Where links in mail point: VANTAGE_PUBLIC_URL, or a relative path. */
  publicBase: string;
  /** A page changed: its cached renderings (by slug) are dropped. */
  changed(slugs: readonly (string | undefined)[]): void;
  now(): number;
  /** The monitors' maintenance windows, shown with the page's own entries when given. */
  windows?: WindowSource | undefined;
}

export interface PageInput {
  slug?: string | undefined;
  title?: string | undefined;
  logo_url?: string | null | undefined;
  custom_domain?: string | null | undefined;
  components?: StoredComponent[] | undefined;
  auto_incidents?: boolean | undefined;
}

type Pg = { page: number; limit: number };

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
const isUnique = (err: unknown) => (err as { code?: unknown })?.code === "23505";
export const secretAad = (id: string) => `status_subscribers:${id}`;

/** The status pages' verbs: the owner's API, the public renderings' data, subscribers, automatic incidents. */
export function createStatusPagesService(d: StatusPagesDeps) {
  const { db } = d;
  // The public subscribe route mails whatever address it is given: counted per client and per mailbox, in
  // the shared table, so that neither one client nor many pages can turn it into a mail cannon.
  const hourly = (name: string, limit: number) =>
    new RateLimiter(dbRateLimitStore(db), { name, limit, windowMs: 3_600_000 }, d.now);
  const subscribeMails = {
    perClient: hourly("status-subscribe:ip", LIMITS.subscribeMailsPerClientHour),
    perAddress: hourly("status-subscribe:email", LIMITS.subscribeMailsPerAddressHour),
  };

  async function owned(ownerId: string, id: string): Promise<repo.PageRow> {
    const p = await repo.findPage(db, id);
    if (!p || p.owner_id !== ownerId) throw notFound("status page");
    return p;
  }

  async function checkComponents(ownerId: string, components: StoredComponent[] | undefined) {
    if (!components) return;
    const ids = [...new Set(components.flatMap((c) => c.monitor_ids))];
    const known = new Set((await d.monitors.summaries(ownerId, ids)).map((m) => m.id));
    for (const [i, c] of components.entries()) {
      for (const [j, m] of c.monitor_ids.entries()) {
        if (!known.has(m)) throw fieldError(`body.components.${i}.monitor_ids.${j}`, `no monitor ${m}`);
      }
    }
  }

  function conflict(err: unknown): never {
    if (!isUnique(err)) throw err;
    const msg = String((err as Error).message);
    if (msg.includes("custom_domain"))
      throw fieldError("body.custom_domain", "another page has this domain", "conflict");
    throw fieldError("body.slug", "another page has this slug", "conflict");
  }

  /** Tells confirmed subscribers of an incident's news: email through the outbox, webhooks queued. */
  async function notify(
    tx: Kysely<Database>,
    p: repo.PageRow,
    incident: repo.IncidentRow,
    update: { status: IncidentStatus; message: string },
    opened: boolean,
  ) {
    const subs = await repo.confirmedSubscribers(tx, p.id);
    const notice = incidentNotice(p, incident, update, opened, d.publicBase);
    for (const s of subs.filter((s) => s.kind === "email")) {
      const unsubscribe = `${d.publicBase}/status/${p.slug}/unsubscribe?id=${s.id}`;
      await d.delivery.enqueue(tx, {
        channel: "email",
        destination: s.destination,
        payload: { subject: notice.subject, text: `${notice.text}\n\nUnsubscribe: ${unsubscribe}` },
      });
    }
    const hooks = subs.filter((s) => s.kind === "webhook").map((s) => s.id);
    await repo.queueWebhooks(tx, hooks, notice.webhookBody);
  }

  async function openIncident(
    p: repo.PageRow,
    v: {
      title: string;
      status: IncidentStatus;
      impact: IncidentImpact;
      message: string;
      monitor_id: string | null;
    },
  ): Promise<repo.IncidentWithUpdates | undefined> {
    const made = await db.transaction().execute(async (tx) => {
      const { message, ...fields } = v;
      const inc = await repo.insertIncident(tx, { page_id: p.id, ...fields }, message);
      if (inc) await notify(tx, p, inc, v, true);
      return inc;
    });
    if (!made) return undefined;
    d.changed([p.slug]);
    return (await repo.withUpdates(db, [made]))[0];
  }

  return {
    async createPage(ownerId: string, input: PageInput & { slug: string; title: string }) {
      if ((await repo.countPages(db, ownerId)) >= LIMITS.pagesPerAccount)
        throw new ApiError("conflict", `an account has at most ${LIMITS.pagesPerAccount} status pages`);
      await checkComponents(ownerId, input.components);
      try {
        const p = await repo.insertPage(db, ownerId, {
          slug: input.slug,
          title: input.title,
          logo_url: input.logo_url ?? null,
          custom_domain: input.custom_domain ?? null,
          components: input.components ?? [],
          auto_incidents: input.auto_incidents ?? true,
        });
        d.changed([p.slug]);
        return p;
      } catch (err) {
        conflict(err);
      }
    },
    listPages: (ownerId: string, pg: Pg) => repo.listPages(db, ownerId, pg),
    getPage: owned,
    async updatePage(ownerId: string, id: string, patch: PageInput) {
      const before = await owned(ownerId, id);
      await checkComponents(ownerId, patch.components);
      const values = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      try {
        const p = (await repo.updatePage(db, id, values)) ?? before;
        d.changed([before.slug, p.slug]);
        return p;
      } catch (err) {
        conflict(err);
      }
    },
    async deletePage(ownerId: string, id: string) {
      const p = await owned(ownerId, id);
      await repo.deletePage(db, id);
      d.changed([p.slug]);
    },

    async openIncident(
      ownerId: string,
      pageId: string,
      v: {
        title: string;
        status?: IncidentStatus | undefined;
        impact?: IncidentImpact | undefined;
        message: string;
      },
    ) {
      const p = await owned(ownerId, pageId);
      const made = await openIncident(p, {
        title: v.title,
        status: v.status ?? "investigating",
        impact: v.impact ?? "minor",
        message: v.message,
        monitor_id: null,
      });
      if (!made) throw new Error("incident not stored");
      return made;
    },
    async addUpdate(
      ownerId: string,
      pageId: string,
      incidentId: string,
      u: { status: IncidentStatus; message: string },
    ) {
      const p = await owned(ownerId, pageId);
      const inc = await repo.findIncident(db, p.id, incidentId);
      if (!inc) throw notFound("incident");
      await db.transaction().execute(async (tx) => {
        await repo.insertUpdate(tx, inc.id, u.status, u.message);
        await repo.setIncidentStatus(tx, inc.id, u.status);
        await notify(tx, p, { ...inc, status: u.status }, u, false);
      });
      d.changed([p.slug]);
      const fresh = await repo.findIncident(db, p.id, incidentId);
      return (await repo.withUpdates(db, fresh ? [fresh] : []))[0]!;
    },
    async listIncidents(ownerId: string, pageId: string, pg: Pg) {
      await owned(ownerId, pageId);
      return repo.listIncidents(db, pageId, pg);
    },

    async addMaintenance(
      ownerId: string,
      pageId: string,
      v: { title: string; description?: string | undefined; starts_at: string; ends_at: string },
    ) {
      const p = await owned(ownerId, pageId);
      const starts = new Date(v.starts_at);
      const ends = new Date(v.ends_at);
      if (ends <= starts) throw fieldError("body.ends_at", "must be after starts_at");
      const m = await repo.insertMaintenance(db, {
        page_id: p.id,
        title: v.title,
        description: v.description ?? "",
        starts_at: starts,
        ends_at: ends,
      });
      d.changed([p.slug]);
      return m;
    },
    async listMaintenance(ownerId: string, pageId: string, pg: Pg) {
      await owned(ownerId, pageId);
      return repo.listMaintenance(db, pageId, pg);
    },
    async deleteMaintenance(ownerId: string, pageId: string, id: string) {
      const p = await owned(ownerId, pageId);
      if (!(await repo.deleteMaintenance(db, p.id, id))) throw notFound("maintenance entry");
      d.changed([p.slug]);
    },

    async addWebhook(ownerId: string, pageId: string, url: string) {
      const p = await owned(ownerId, pageId);
      const box = d.box;
      if (!box)
        throw new ApiError("unavailable", "webhook subscribers need VANTAGE_SECRET_KEY to seal their secret");
      assertPublicUrl(url, "body.url", d.allowPrivate);
      if ((await repo.countSubscribers(db, p.id)) >= LIMITS.subscribersPerPage)
        throw new ApiError("conflict", `a page has at most ${LIMITS.subscribersPerPage} subscribers`);
      const secret = `whsec_${randomBytes(32).toString("base64")}`;
      const row = await repo.insertSubscriber(
        db,
        {
          page_id: p.id,
          kind: "webhook",
          destination: url,
          token_hash: hashToken(randomBytes(24).toString("hex")),
          confirmed: true,
        },
        (id) => box.seal(secret, secretAad(id)),
      );
      if (!row) throw fieldError("body.url", "this URL already subscribes to the page", "conflict");
      return { row, secret };
    },
    async listSubscribers(ownerId: string, pageId: string, pg: Pg) {
      await owned(ownerId, pageId);
      return repo.listSubscribers(db, pageId, pg);
    },
    async deleteSubscriber(ownerId: string, pageId: string, id: string) {
      const p = await owned(ownerId, pageId);
      if (!(await repo.deleteSubscriber(db, p.id, id))) throw notFound("subscriber");
    },

    /**
     * Public, double opt-in: a pending subscriber and a confirmation mail with a one-time link. The answer is
     * the same whether the address was new, pending or confirmed (no address is revealed).
     */
    async subscribeEmail(slug: string, email: string, clientIp: string): Promise<void> {
      await consumeAll(
        [
          [subscribeMails.perClient, ipBucket(clientIp)],
          [subscribeMails.perAddress, mailboxBucket(email)],
        ],
        "too many subscription requests from this client or for this address",
      );
      const p = await repo.findPageBySlug(db, slug);
      if (!p) throw notFound("status page");
      if ((await repo.countSubscribers(db, p.id)) >= LIMITS.subscribersPerPage)
        throw new ApiError("conflict", "this page takes no more subscribers");
      const token = randomBytes(24).toString("base64url");
      await db.transaction().execute(async (tx) => {
        const row = await repo.insertSubscriber(tx, {
          page_id: p.id,
          kind: "email",
          destination: email.toLowerCase(),
          token_hash: hashToken(token),
          confirmed: false,
        });
        if (!row) return;
        const link = `${d.publicBase}/status/${p.slug}/confirm?token=${token}`;
        await d.delivery.enqueue(tx, {
          channel: "email",
          destination: row.destination,
          payload: {
            subject: `Confirm your subscription to ${p.title}`,
            text: `Someone (hopefully you) asked to be told of incidents on the status page "${p.title}".\n\nConfirm: ${link}\n\nIgnore this mail and nothing more will come.`,
          },
        });
      });
    },
    /** Confirms by the mailed token; false for an unknown token. */
    async confirmEmail(slug: string, token: string): Promise<boolean> {
      const p = await repo.findPageBySlug(db, slug);
      if (!p) throw notFound("status page");
      const s = await repo.subscriberByToken(db, p.id, hashToken(token));
      if (!s) return false;
      await repo.confirmSubscriber(db, s.id);
      return true;
    },
    /** Unsubscribes by the mailed token (confirmation link) or subscriber id (incident mail); false if unknown. */
    async unsubscribe(slug: string, by: { token?: string; id?: string }): Promise<boolean> {
      const p = await repo.findPageBySlug(db, slug);
      if (!p) throw notFound("status page");
      const id = by.token ? (await repo.subscriberByToken(db, p.id, hashToken(by.token)))?.id : by.id;
      return id !== undefined && (await repo.deleteSubscriber(db, p.id, id));
    },

    /** The public view of the page with this slug; undefined when there is none. */
    async snapshot(slug: string): Promise<Snapshot | undefined> {
      const p = await repo.findPageBySlug(db, slug);
      if (!p) return undefined;
      return buildSnapshot(db, d.monitors, p, d.now(), d.windows);
    },
    customDomains: () => repo.customDomains(db),

    /**
     * One round of automatic incidents: for each page that opens them, a component monitor that is down and
     * has no open automatic incident gets one (unique per page and monitor, so several controllers open one);
     * an open one whose monitor is up again is resolved.
     */
    async autoIncidentRound(): Promise<{ opened: number; resolved: number }> {
      let opened = 0;
      let resolved = 0;
      for (const p of await repo.autoPages(db)) {
        const ids = [...new Set(p.components.flatMap((c) => c.monitor_ids))];
        if (ids.length === 0) continue;
        const monitors = await d.monitors.summaries(p.owner_id, ids);
        const open = await repo.openAutoIncidents(db, p.id);
        // Down inside announced maintenance is what the page already says: no incident unless it outlasts it.
        const maintained = monitors.some((m) => m.state === "down" && !open.has(m.id))
          ? await monitorsInMaintenance(db, p, ids, d.now(), d.windows)
          : new Set<string>();
        for (const m of monitors) {
          const incidentId = open.get(m.id);
          if (m.state === "down" && m.status === "active" && !incidentId && !maintained.has(m.id)) {
            const made = await openIncident(p, {
              title: `${m.name} is down`,
              status: "investigating",
              impact: "major",
              message: `Our monitoring found ${m.name} down. We are looking into it.`,
              monitor_id: m.id,
            });
            if (made) opened++;
          } else if (m.state === "up" && incidentId) {
            const inc = await repo.findIncident(db, p.id, incidentId);
            if (!inc) continue;
            const u = { status: "resolved" as const, message: `${m.name} is up again.` };
            await db.transaction().execute(async (tx) => {
              await repo.insertUpdate(tx, inc.id, u.status, u.message);
              await repo.setIncidentStatus(tx, inc.id, u.status);
              await notify(tx, p, { ...inc, status: u.status }, u, false);
            });
            d.changed([p.slug]);
            resolved++;
          }
        }
      }
      return { opened, resolved };
    },
  };
}

export type StatusPagesService = ReturnType<typeof createStatusPagesService>;
