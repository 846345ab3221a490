import { randomUUID } from "node:crypto";
import { logRoundFailure } from "../../db/availability.js";
import { STATE_CHANGES_CHANNEL } from "../../db/notify.js";
import type { AppDeps, Module, Worker } from "../../deps.js";
import { requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import type { Router } from "../../http/router.js";
import { type PollLoop, startPollLoop } from "../../lib/poll-loop.js";
import { createSecretBox, type SecretBox } from "../../lib/secret-box.js";
import { resolveSecretKey } from "../../lib/secret-key.js";
import type { AccountsService } from "../accounts/index.js";
import type { DeliveryService } from "../delivery/index.js";
import type { PlansService } from "../plans/index.js";
import { ackToken } from "./acknowledge.js";
import { afterMaintenanceDue, makeAfterMaintenance } from "./after-maintenance.js";
import { sendHttp } from "./channels/send.js";
import { createDeliverer } from "./deliver.js";
import { escalationDue, escalationOpen, makeEscalations } from "./escalation.js";
import { alertWork, type MuteCheck, makeEvents, makeReminders } from "./events.js";
import { registerAckRoutes } from "./routes/acknowledge.js";
import { registerAlertRoutes } from "./routes/register.js";
import { createAlertsService } from "./service.js";
import { createTestSends } from "./test-sends.js";
import type { AlertsService } from "./types.js";

/** Deliveries one claim takes. */
const DELIVERY_BATCH = 100;

/**
 * A quiet notifier (no change, delivery or escalation waiting) polls every this many
 * `VANTAGE_ALERTS_POLL_MS`: a state change wakes it at once (STATE_CHANGES_CHANNEL), and what else can
 * fall due (a reminder, an escalation step, a window's end) is counted in minutes.
 */
export const QUIET_POLLS = 4;

export interface AlertsModule extends Module<AlertsService> {
  /** The notifier role's share: state changes → events → deliveries, delivered with retries. */
  readonly worker: Worker;
  /** The box channel secrets are sealed with; undefined without VANTAGE_SECRET_KEY in distributed mode. */
  readonly box: SecretBox | undefined;
}

/**
 * Alerts: monitor state changes become events per matching policy and one delivery per channel (events.ts),
 * delivered by the notifier role of any controller with a log, a failing channel tried again every few
 * seconds (deliver.ts), over the eight channel types (channels/). Channel secrets are sealed at rest.
 */
export function createAlerts(
  deps: AppDeps,
  services: {
    delivery: DeliveryService;
    authenticator: Authenticator;
    accounts: Pick<AccountsService, "emailVerified">;
    plans: Pick<PlansService, "record">;
    /** Maintenance windows (the monitors module's): changes and reminders inside one alert nobody. */
    maintenance?: { covering: MuteCheck };
  },
): AlertsModule {
  const { config } = deps;
  let box: SecretBox | undefined;
  try {
    box = createSecretBox(resolveSecretKey(config, deps.log));
  } catch (err) {
    // Distributed mode without VANTAGE_SECRET_KEY: everything runs; channels with secrets cannot be stored.
    deps.log.warn({ err: (err as Error).message }, "alert channel secrets cannot be sealed");
  }
  const db = deps.db.kysely;
  const publicUrl = (config.VANTAGE_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, "");
  const minuteMs = config.VANTAGE_ALERTS_ESCALATION_MINUTE_MS;
  const mute = services.maintenance?.covering;
  const deliverer = createDeliverer({
    db,
    ackUrl: (eventId) => (box ? `${publicUrl}/v1/alert-ack/${ackToken(box, eventId, Date.now())}` : null),
    eventUrl: (eventId) => `${publicUrl}/v1/alert-events/${eventId}`,
    log: deps.log,
    ctx: {
      now: Date.now,
      pagerdutyUrl: config.VANTAGE_PAGERDUTY_URL,
      smsBaseUrl: config.VANTAGE_SMS_API_URL,
      randomId: randomUUID,
    },
    // Webhook URLs are the users' own: the probes' target guard applies to them.
    send: (req) =>
      sendHttp(
        { kind: "http", ...req },
        { allowPrivate: config.VANTAGE_ALLOW_PRIVATE_TARGETS, lookup: deps.hostLookup, timeoutMs: 10_000 },
      ),
    async enqueueEmail(mail) {
      for (const to of mail.to) {
        await services.delivery.enqueue(db, {
          channel: "email",
          destination: to,
          payload: { subject: mail.subject, text: mail.text },
        });
      }
    },
    openSecrets(row) {
      if (!row.secrets) return {};
      if (!box) throw new Error("VANTAGE_SECRET_KEY is not set: the channel's secrets cannot be opened");
      return box.openJson(row.secrets, `alert_channels:${row.id}`);
    },
  });

  let loop: PollLoop | undefined;
  let listening: { close(): Promise<void> } | undefined;
  // Read by a round's inner loops: a stop ends a burst at its next batch.
  let stopped = true;
  // Whether the last round's gate found nothing waiting or about to be (the longer pause follows).
  let quiet = false;
  const tick = async () => {
    quiet = false;
    try {
      const now = new Date();
      const work = await alertWork(
        db,
        now,
        [escalationDue(now, minuteMs), ...(mute ? [afterMaintenanceDue] : [])],
        [escalationOpen],
      );
      quiet = !work.now && !work.soon;
      if (!work.now) return;
      // Full batches mean more is waiting: go on at once (a burst of changes is not paced by the poll).
      while ((await makeEvents(db, 500, mute)).changes >= 500) if (stopped) return;
      await makeReminders(db, new Date(), mute);
      if (mute) await makeAfterMaintenance(db, new Date(), mute);
      await makeEscalations(db, new Date(), minuteMs);
      for (;;) {
        const done = await deliverer.runOnce(DELIVERY_BATCH);
        const n = done.sent + done.retry + done.failed + done.postponed;
        if (n < DELIVERY_BATCH || stopped) break;
      }
    } catch (err) {
      logRoundFailure(deps.log, err, "alert events or deliveries failed this round; trying again");
    }
  };

  const service = createAlertsService({
    db,
    log: deps.log,
    plans: config.VANTAGE_PLAN_LIMITS,
    box,
    allowPrivate: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    sendTest: (channelId, ownerId) => deliverer.sendTest(channelId, ownerId),
  });

  const worker: Worker = {
    async start() {
      if (loop) return;
      stopped = false;
      // `tick` logs its own failures and never rejects.
      const poll = config.VANTAGE_ALERTS_POLL_MS;
      loop = startPollLoop({
        round: tick,
        everyMs: () => (quiet ? poll * QUIET_POLLS : poll),
        onError: () => {},
      });
      // A state change written by any controller wakes the notifier, and so does the listen connection
      // coming back (a notice may have been missed meanwhile); the poll finds what no notice announced.
      const wake = () => loop?.wake();
      listening = await deps.db.listen(STATE_CHANGES_CHANNEL, wake, wake);
    },
    async stop() {
      stopped = true;
      await listening?.close();
      listening = undefined;
      await loop?.stop();
      loop = undefined;
    },
  };

  return {
    routes(app: Router) {
      const testSends = createTestSends({
        db,
        perChannel: config.VANTAGE_ALERT_TEST_LIMIT_CHANNEL,
        perAccount: config.VANTAGE_ALERT_TEST_LIMIT_ACCOUNT,
        emailVerified: (userId) => services.accounts.emailVerified(userId),
        meter: (caller) => services.plans.record(caller, "alert_tests", 1),
      });
      registerAlertRoutes(
        app,
        service,
        requireAuth(services.authenticator),
        config.VANTAGE_API_FORM,
        testSends,
      );
      registerAckRoutes(app, service, requireAuth(services.authenticator), config.VANTAGE_API_FORM, {
        db,
        box,
      });
    },
    service,
    box,
    worker,
    workers: [{ role: "notifier", name: "alerts", start: () => worker.start(), stop: () => worker.stop() }],
  };
}
