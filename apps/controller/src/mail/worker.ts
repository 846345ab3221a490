import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema.js";
import { claimDueMail, markMailFailed, markMailSent } from "./outbox.js";
import type { MailTransport } from "./transport.js";

export interface MailWorker {
  /** Sends every message due now; resolves with how many were sent. */
  runOnce(): Promise<number>;
  /** Stops polling and waits for a send in progress. */
  stop(): Promise<void>;
}

/** Polls the outbox every `intervalMs` (and at once on start), sending in batches of 20. */
export function startMailWorker(opts: {
  db: Kysely<Database>;
  transport: MailTransport;
  log: Logger;
  intervalMs?: number;
  poll?: boolean;
}): MailWorker {
  const interval = opts.intervalMs ?? 2000;
  let running: Promise<number> | undefined;
  let stopped = false;

  const drain = async (): Promise<number> => {
    let sent = 0;
    for (;;) {
      const batch = await claimDueMail(opts.db, 20);
      for (const m of batch) {
        try {
          await opts.transport.send(m);
          await markMailSent(opts.db, m.id);
          sent++;
        } catch (err) {
          opts.log.warn({ err, mail_id: m.id, attempts: m.attempts }, "mail send failed; will retry");
          await markMailFailed(opts.db, m.id, m.attempts, err instanceof Error ? err.message : String(err));
        }
      }
      if (batch.length < 20) return sent;
    }
  };

  // Runs are serialised: a call during a run starts another after it, so nothing queued before the call
  // is missed.
  const runOnce = (): Promise<number> => {
    const next = (running ?? Promise.resolve(0)).catch(() => 0).then(drain);
    running = next;
    return next;
  };

  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    runOnce()
      .catch((err: unknown) => opts.log.error({ err }, "mail outbox poll failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, interval);
      });
  };
  if (opts.poll ?? true) tick();

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => 0);
      opts.transport.close();
    },
  };
}
