export type TransportErrorCode = "no_responders" | "timeout" | "closed" | "transport_error";

/** A request that did not get a reply: nobody listens (`no_responders`), the deadline passed, or the link broke. */
export class TransportError extends Error {
  constructor(
    readonly code: TransportErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "TransportError";
  }
}

/** What the controller uses to reach agents. Messages are JSON values; schemas live in @vantage/protocol. */
export interface ControllerTransport {
  readonly kind: "in-process" | "nats";
  /** Sends `message` to node `nodeId`'s job subject; resolves with its reply or rejects with TransportError. */
  request(nodeId: string, message: unknown, timeoutMs: number): Promise<unknown>;
  /** Calls `handler` for every heartbeat; the node id comes from the subject, never from the payload. */
  subscribeHeartbeats(handler: (nodeId: string, message: unknown) => void): () => void;
  close(): Promise<void>;
}

/** What one agent uses: answer its own jobs, publish its own heartbeats. */
export interface AgentLink {
  readonly kind: "in-process" | "nats";
  /** Serves jobs; the handler's resolved value is the reply. Returns a function that stops serving. */
  serveJobs(nodeId: string, handler: (message: unknown) => Promise<unknown>): () => Promise<void>;
  publishHeartbeat(nodeId: string, message: unknown): void;
  close(): Promise<void>;
}
