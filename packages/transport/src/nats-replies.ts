import { createInbox, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { TransportError } from "./types.js";

interface Pending {
  resolve(msg: Msg): void;
  reject(err: TransportError): void;
  timer: NodeJS.Timeout;
  subject: string;
  onProgress: ((msg: Msg) => void) | undefined;
}

/**
 * The header that marks a message on a reply subject as the job's progress, not its reply: the request
 * stays open. (An agent sends progress only to a job that asked for it; see `JobMessageInfo.progress`.)
 */
export const PROGRESS_HEADER = "Vantage-Progress";

/**
 * Request/reply over one wildcard inbox subscription, as nats.js's own `request` does, minus its cost on the
 * success path: nats.js builds a `RequestError("cancelled")` (a captured stack) and a timer object chain for
 * every request it resolves, a twentieth of the controller's CPU per probe on three nodes. Replies map to
 * their request by the last token of the reply subject; an empty message with status 503 is NATS telling
 * that nobody serves the subject.
 */
export class ReplyMux {
  private readonly prefix: string;
  private readonly pending = new Map<string, Pending>();
  private sub: Subscription | undefined;
  private next = 0;

  constructor(
    private readonly nc: NatsConnection,
    inboxPrefix = "_INBOX",
  ) {
    this.prefix = `${createInbox(inboxPrefix)}.`;
  }

  /**
   * Publishes `data` to `subject` and resolves with the first reply, or rejects with a TransportError.
   * Messages marked as progress (`PROGRESS_HEADER`) go to `onProgress` and leave the request open.
   */
  request(
    subject: string,
    data: Uint8Array,
    timeoutMs: number,
    onProgress?: (msg: Msg) => void,
  ): Promise<Msg> {
    if (this.nc.isClosed() || this.nc.isDraining())
      return Promise.reject(new TransportError("closed", "NATS connection is closed"));
    this.sub ??= this.nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => this.onReply(err, msg) });
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new TransportError("timeout", `no reply on ${subject} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(token, { resolve, reject, timer, subject, onProgress });
      try {
        this.nc.publish(subject, data, { reply: this.prefix + token });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(token);
        reject(new TransportError("transport_error", err instanceof Error ? err.message : String(err)));
      }
    });
  }

  /** Rejects every open request (`closed`) and drops the inbox subscription. */
  close(): void {
    this.sub?.unsubscribe();
    this.sub = undefined;
    this.rejectAll(new TransportError("closed", "NATS connection is closed"));
  }

  /**
   * Rejects every request open now with `err` and returns how many there were. The inbox subscription
   * stays (nats.js renews it on a reconnect), so requests made afterwards get their replies as usual.
   */
  rejectAll(err: TransportError): number {
    const open = [...this.pending.values()];
    this.pending.clear();
    for (const p of open) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    return open.length;
  }

  private onReply(err: Error | null, msg: Msg): void {
    if (err) {
      // The inbox subscription itself failed (e.g. a permissions violation): nothing will answer.
      this.rejectAll(new TransportError("transport_error", err.message));
      this.sub = undefined;
      return;
    }
    const token = msg.subject.slice(this.prefix.length);
    const p = this.pending.get(token);
    if (!p) return; // late, after its timeout
    if (msg.headers?.has(PROGRESS_HEADER)) {
      p.onProgress?.(msg);
      return;
    }
    this.pending.delete(token);
    clearTimeout(p.timer);
    if (msg.data.length === 0 && msg.headers?.code === 503)
      p.reject(new TransportError("no_responders", `nobody serves ${p.subject}`));
    else p.resolve(msg);
  }
}
