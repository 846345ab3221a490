import { guardedRequest, LookupError } from "@vantage/lookups";
import type { HostLookup } from "@vantage/probes";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { Webhook } from "standardwebhooks";
import type { Database } from "../../db/schema.js";
import type { SecretBox } from "../../lib/secret-box.js";
import * as repo from "./repo.js";
import { secretAad } from "./service.js";

/** A notice is tried this many times, backing off 30 s, 1, 2, 4 … minutes; then it stays for inspection. */
export const MAX_WEBHOOK_ATTEMPTS = 8;
const BATCH = 50;

export interface WebhookSenderDeps {
  db: Kysely<Database>;
  log: Logger;
  box: SecretBox | undefined;
  allowPrivate: boolean;
  lookup?: HostLookup | undefined;
  now(): number;
}

/**
 * Sends the queued incident notices to webhook subscribers (notifier role): each signed when sent, per
 * Standard Webhooks as the alerts' webhook channel signs (`webhook-id` is the notice's id, stable across
 * retries), through the target guard. 2xx is sent; anything else is tried again later.
 */
export async function sendDueWebhooks(d: WebhookSenderDeps): Promise<{ sent: number; failed: number }> {
  const due = await repo.claimWebhooks(d.db, BATCH, MAX_WEBHOOK_ATTEMPTS);
  let sent = 0;
  let failed = 0;
  for (const w of due) {
    let error: string | undefined;
    try {
      if (!d.box || !w.secret_sealed)
        throw new Error("the signing secret cannot be opened (VANTAGE_SECRET_KEY)");
      const secret = d.box.open(w.secret_sealed, secretAad(w.subscriber_id));
      const at = new Date(d.now());
      const res = await guardedRequest(
        w.url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": "vantage-status/1",
            "webhook-id": w.id,
            "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
            "webhook-signature": new Webhook(secret).sign(w.id, at, w.body),
          },
          body: w.body,
          timeoutMs: 10_000,
          maxBytes: 16 * 1024,
          maxRedirects: 0,
        },
        { allowPrivate: d.allowPrivate, lookup: d.lookup },
      );
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      error = err instanceof LookupError ? `${err.code}: ${new URL(w.url).host}` : (err as Error).message;
    }
    if (error === undefined) {
      await repo.webhookSent(d.db, w.id);
      sent++;
    } else {
      const backoff = 30_000 * 2 ** Math.min(w.attempts - 1, 10);
      await repo.webhookFailed(d.db, w.id, error, new Date(d.now() + backoff));
      d.log.warn({ notice: w.id, subscriber: w.subscriber_id, error }, "status page webhook not delivered");
      failed++;
    }
  }
  return { sent, failed };
}
