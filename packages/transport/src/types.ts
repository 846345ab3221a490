export type TransportErrorCode =
  | "no_responders"
  | "timeout"
  | "closed"
  | "transport_error"
  /** The agent's process ended with the job in flight, for a cause not tied to the job (e.g. SIGKILL). */
  | "agent_exited"
  /** The agent crashed with the job in flight and said so (its `crashed_jobs`): the job may be the cause. */
  | "agent_crashed"
  /**
   * The controller's NATS connection dropped with the request in flight (nats.js reconnects by itself):
   * the job may or may not have reached the agent and run; its reply would most likely be lost.
   */
  | "transport_lost";

/**
 * A request that did not get a reply: nobody listens (`no_responders`), the deadline passed, the link broke
 * (`transport_lost`: it dropped with the request in flight), or the agent's process ended while running it
 * (`agent_exited`, `agent_crashed`).
 */
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
  /**
   * Sends `message` to node `nodeId`'s job subject; resolves with its reply or rejects with TransportError.
   * `onProgress` hears the messages the agent sends before its reply (`JobMessageInfo.progress`), in order,
   * until the request settles.
   */
  request(
    nodeId: string,
    message: unknown,
    timeoutMs: number,
    onProgress?: (message: unknown) => void,
  ): Promise<unknown>;
  /**
   * Publishes `message` on node `nodeId`'s job subject without waiting for anything: no reply is asked
   * for, and nobody listening is not an error. For notices such as "your protocol version is refused".
   */
  notify(nodeId: string, message: unknown): void;
  /** Calls `handler` for every heartbeat; the node id comes from the subject, never from the payload. */
  subscribeHeartbeats(handler: (nodeId: string, message: unknown) => void): () => void;
  /**
   * Resolves once everything this side has sent so far (subscriptions included) has reached the server:
   * after it, a `subscribeHeartbeats` handler hears every heartbeat an agent publishes.
   */
  flush(): Promise<void>;
  /**
   * False while the link to the agents is down (NATS disconnected and reconnecting, or closed): a request
   * now could only wait out its deadline, so callers can refuse at once instead.
   */
  connected(): boolean;
  close(): Promise<void>;
}

/** What the agent's job handler learns about a message besides its payload. */
export interface JobMessageInfo {
  /** False for a message sent with `notify` (no reply subject): the handler's value is then discarded. */
  replyExpected: boolean;
  /**
   * Sends a message to the requester before the reply (the job's progress), for a request only. Nothing
   * after the handler has resolved: the reply ends the exchange.
   */
  progress?: ((message: unknown) => void) | undefined;
}

export type JobHandler = (message: unknown, info: JobMessageInfo) => Promise<unknown>;

/** What one agent uses: answer its own jobs, publish its own heartbeats. */
export interface AgentLink {
  readonly kind: "in-process" | "nats";
  /**
   * Serves every message on the node's job subject: requests, whose reply is the handler's resolved value,
   * and notifications (`replyExpected: false`). Returns a function that stops serving.
   */
  serveJobs(nodeId: string, handler: JobHandler): () => Promise<void>;
  /**
   * Resolves once everything this link has sent so far (subscriptions included) has reached the server:
   * after it, a `serveJobs` subscription receives what any client sends to it.
   */
  flush(): Promise<void>;
  publishHeartbeat(nodeId: string, message: unknown): void;
  close(): Promise<void>;
}
