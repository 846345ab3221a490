import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { logRoundFailure } from "../../db/availability.js";
import type { Database } from "../../db/schema.js";
import { startPollLoop } from "../../lib/poll-loop.js";
import { claimDue, markFailed, markSent } from "./outbox.js";
import type { OutboxChannel, OutboxPayloads, Sender, Senders } from "./senders/index.js";

export interface DeliveryWorker {
  /** Delivers every message due now; resolves with how many were delivered. */
  runOnce(): Promise<number>;
  /** Stops polling, waits for a delivery in progress and closes the senders. */
  stop(): Promise<void>;
}

const BATCH = 20;

/** Polls the outbox every `intervalMs` (and at once on start), delivering in batches of 20. */
export function startDeliveryWorker(opts: {
  db: Kysely<Database>;
  senders: Senders;
  log: Logger;
  intervalMs?: number;
  poll?: boolean;
}): DeliveryWorker {
  const interval = opts.intervalMs ?? 2000;
  let running: Promise<number> | undefined;

  const drain = async (): Promise<number> => {
    let sent = 0;
    for (;;) {
      const batch = await claimDue(opts.db, BATCH);
      for (const m of batch) {
        try {
          const channel = opts.senders[m.channel as OutboxChannel] as Sender<OutboxChannel> | undefined;
          if (!channel) throw new Error(`unknown delivery channel "${m.channel}"`);
          // The payload was written for this channel by `enqueueDelivery`, typed by the same map.
          await channel.send(m.destination, m.payload as OutboxPayloads[OutboxChannel]);
          await markSent(opts.db, m.id);
          sent++;
        } catch (err) {
          opts.log.warn(
            { err, delivery_id: m.id, channel: m.channel, attempts: m.attempts },
            "delivery failed; will retry",
          );
          await markFailed(opts.db, m.id, m.attempts, err instanceof Error ? err.message : String(err));
        }
      }
      if (batch.length < BATCH) return sent;
    }
  };

  // Runs are serialised: a call during a run starts another after it, so nothing queued before the call
  // is missed.
  const runOnce = (): Promise<number> => {
    const next = (running ?? Promise.resolve(0)).catch(() => 0).then(drain);
    running = next;
    return next;
  };

  const loop =
    (opts.poll ?? true)
      ? startPollLoop({
          round: runOnce,
          everyMs: interval,
          onError: (err) => logRoundFailure(opts.log, err, "delivery outbox poll failed", "error"),
        })
      : undefined;

  return {
    runOnce,
    async stop() {
      await loop?.stop();
      await running?.catch(() => 0);
      for (const channel of Object.values(opts.senders)) channel.close();
    },
  };
}
