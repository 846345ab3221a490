/**
 * What each channel carries besides its destination. Alert channels (webhook, Slack, …) add their entries
 * here and a file beside `email.ts`; the registry in `index.ts` then fails to build until it lists them.
 */
export interface ChannelPayloads {
  email: { subject: string; text: string };
}

export type ChannelType = keyof ChannelPayloads;

/** One message on one channel, as the outbox stores it. */
export type Delivery<C extends ChannelType = ChannelType> = {
  [K in C]: { channel: K; destination: string; payload: ChannelPayloads[K] };
}[C];

/** One channel type: delivers a message, throwing to have it retried with backoff. */
export interface Channel<C extends ChannelType> {
  readonly type: C;
  send(destination: string, payload: ChannelPayloads[C]): Promise<void>;
  close(): void;
}

export type Channels = { [C in ChannelType]: Channel<C> };
