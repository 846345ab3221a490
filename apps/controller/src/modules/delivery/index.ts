import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.js";
import type { AppDeps, Module, Worker } from "../../deps.js";
import { enqueueDelivery } from "./outbox.js";
import { createSenders, type Delivery, type OutboxChannel } from "./senders/index.js";
import { type DeliveryWorker, startDeliveryWorker } from "./worker.js";

export { MAX_DELIVERY_ATTEMPTS } from "./outbox.js";
export {
  createSenders,
  type Delivery,
  type OutboxChannel,
  type OutboxPayloads,
  type Sender,
  type Senders,
} from "./senders/index.js";
export { type DeliveryWorker, startDeliveryWorker } from "./worker.js";

/** The delivery outbox as other modules use it: accounts queue verification mail, alerts their events. */
export interface DeliveryService {
  /**
   * Queues a message for its channel. Pass the transaction that makes the message necessary, so neither
   * exists without the other; the notifier role delivers it, retrying with backoff.
   */
  enqueue<C extends OutboxChannel>(
    db: Kysely<Database> | Transaction<Database>,
    delivery: Delivery<C>,
  ): Promise<string>;
}

export interface DeliveryModule extends Module<DeliveryService> {
  /** The notifier role: polls the outbox and delivers what is due (SMTP_URL unset: mail is logged). */
  readonly worker: Worker;
}

/** The general delivery outbox (email is one channel of it) and its worker, which the notifier role runs. */
export function createDelivery(deps: AppDeps): DeliveryModule {
  let worker: DeliveryWorker | undefined;
  const outbox: Worker = {
    async start() {
      worker = startDeliveryWorker({
        db: deps.db.kysely,
        senders: createSenders({
          smtpUrl: deps.config.SMTP_URL,
          smtpFrom: deps.config.SMTP_FROM,
          log: deps.log,
        }),
        log: deps.log,
      });
    },
    async stop() {
      await worker?.stop();
      worker = undefined;
    },
  };
  return {
    service: { enqueue: enqueueDelivery },
    worker: outbox,
    workers: [{ role: "notifier", name: "outbox", start: () => outbox.start(), stop: () => outbox.stop() }],
  };
}
