import type { Logger } from "pino";
import { emailChannel } from "./email.js";
import type { Channels } from "./types.js";

export type { Channel, ChannelPayloads, Channels, ChannelType, Delivery } from "./types.js";

/** Every channel type, checked exhaustive by the compiler: a new type fails to build until it is listed. */
export function createChannels(opts: {
  smtpUrl: string | undefined;
  smtpFrom: string;
  log: Logger;
}): Channels {
  return {
    email: emailChannel({ smtpUrl: opts.smtpUrl, from: opts.smtpFrom, log: opts.log }),
  };
}
