/**
 * What each outbox channel carries besides its destination: today email (account mail and alert emails).
 * A new kind of outbox message adds its entry here and a sender beside `smtp.ts`; the registry in
 * `index.ts` then fails to build until it lists it. (Alert channels, webhook, Slack and the rest, are the
 * alerts module's own: modules/alerts/channels/.)
 */
export interface OutboxPayloads {
  email: { subject: string; text: string };
}

export type OutboxChannel = keyof OutboxPayloads;

/** One message on one channel, as the outbox stores it. */
export type Delivery<C extends OutboxChannel = OutboxChannel> = {
  [K in C]: { channel: K; destination: string; payload: OutboxPayloads[K] };
}[C];

/** Sends one outbox channel's messages, throwing to have one retried with backoff. */
export interface Sender<C extends OutboxChannel> {
  readonly type: C;
  send(destination: string, payload: OutboxPayloads[C]): Promise<void>;
  close(): void;
}

export type Senders = { [C in OutboxChannel]: Sender<C> };
