import type { Logger } from "pino";
import { smtpSender } from "./smtp.js";
import type { Senders } from "./types.js";

export type { Delivery, OutboxChannel, OutboxPayloads, Sender, Senders } from "./types.js";

/** Every channel type, checked exhaustive by the compiler: a new type fails to build until it is listed. */
export function createSenders(opts: { smtpUrl: string | undefined; smtpFrom: string; log: Logger }): Senders {
  return {
    email: smtpSender({ smtpUrl: opts.smtpUrl, from: opts.smtpFrom, log: opts.log }),
  };
}
