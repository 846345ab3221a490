import { PendingJobs } from "./crash-notices.js";
import { type AgentLink, type ControllerTransport, type JobHandler, TransportError } from "./types.js";

type HeartbeatHandler = (nodeId: string, message: unknown) => void;

/** Round-trips through JSON so in-process callers see exactly what NATS would carry. */
function wire(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/**
 * A bus inside one process: the embedded mode's controller and local agent talk over it. Same semantics as
 * the NATS transport (no responders at once, deadline per request, heartbeats by node).
 */
export class InProcessBus {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly heartbeatHandlers = new Set<HeartbeatHandler>();
  private readonly pending = new PendingJobs();
  private closed = false;

  controller(): ControllerTransport {
    return {
      kind: "in-process",
      request: (nodeId, message, timeoutMs, onProgress) =>
        this.request(nodeId, message, timeoutMs, onProgress),
      notify: (nodeId, message) => {
        const handler = this.closed ? undefined : this.handlers.get(nodeId);
        if (!handler) return; // like a NATS publish nobody hears
        const copy = wire(message);
        queueMicrotask(
          () =>
            void handler(copy, { replyExpected: false }).catch(() => {
              // a notification has nobody to tell
            }),
        );
      },
      subscribeHeartbeats: (handler) => {
        this.heartbeatHandlers.add(handler);
        return () => this.heartbeatHandlers.delete(handler);
      },
      connected: () => !this.closed,
      flush: async () => {},
      close: async () => {
        this.closed = true;
        this.heartbeatHandlers.clear();
      },
    };
  }

  agent(): AgentLink {
    const served = new Set<string>();
    return {
      kind: "in-process",
      flush: async () => {},
      serveJobs: (nodeId, handler) => {
        const inflight = new Set<Promise<unknown>>();
        const tracked: JobHandler = (message, info) => {
          const p = handler(message, info);
          const settled = p.then(
            () => undefined,
            () => undefined,
          );
          inflight.add(settled);
          void settled.then(() => inflight.delete(settled));
          return p;
        };
        this.handlers.set(nodeId, tracked);
        served.add(nodeId);
        return async () => {
          if (this.handlers.get(nodeId) === tracked) this.handlers.delete(nodeId);
          served.delete(nodeId);
          await Promise.allSettled([...inflight]);
        };
      },
      publishHeartbeat: (nodeId, message) => {
        const copy = wire(message);
        // A crash notice answers the node's listed requests now; it is a heartbeat for the handlers too.
        this.pending.heard(nodeId, copy);
        for (const h of this.heartbeatHandlers) queueMicrotask(() => h(nodeId, copy));
      },
      close: async () => {
        for (const id of served) this.handlers.delete(id);
        served.clear();
      },
    };
  }

  private request(
    nodeId: string,
    message: unknown,
    timeoutMs: number,
    onProgress?: (message: unknown) => void,
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new TransportError("closed", "transport is closed"));
    const handler = this.handlers.get(nodeId);
    if (!handler)
      return Promise.reject(new TransportError("no_responders", `no agent serves node ${nodeId}`));
    return new Promise((resolve, reject) => {
      let open = true;
      const untrack = this.pending.track(nodeId, message, (err) => {
        open = false;
        clearTimeout(timer);
        reject(err);
      });
      const timer = setTimeout(() => {
        open = false;
        untrack();
        reject(new TransportError("timeout", `node ${nodeId} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      // As over NATS: progress reaches the requester while its request is open, never after.
      const progress = (m: unknown) => {
        if (open && onProgress) onProgress(wire(m));
      };
      handler(wire(message), { replyExpected: true, progress }).then(
        (reply) => {
          open = false;
          untrack();
          clearTimeout(timer);
          resolve(wire(reply));
        },
        (err: unknown) => {
          open = false;
          untrack();
          clearTimeout(timer);
          // A handler that forwards jobs elsewhere (the embedded agent's supervisor) says why with its own code.
          reject(
            err instanceof TransportError
              ? err
              : new TransportError("transport_error", err instanceof Error ? err.message : String(err)),
          );
        },
      );
    });
  }
}
