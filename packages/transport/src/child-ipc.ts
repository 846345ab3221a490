import type { AgentLink, JobHandler } from "./types.js";

/**
 * The embedded mode's agent runs in a child process (child_process.fork) and talks to the controller over
 * Node's IPC channel: the controller's supervisor serves the local node's jobs on the in-process bus and
 * forwards each one here; this side answers and forwards heartbeats back. These are the messages.
 */

/** controller → agent child */
export type ToAgentChild =
  /** A job (or a notification, `reply: false`); `id` pairs the answer with it. */
  | { t: "job"; id: number; reply: boolean; message: unknown }
  /** Drain and exit 0 (the controller is shutting down). */
  | { t: "stop" };

/** agent child → controller */
export type FromAgentChild =
  | { t: "reply"; id: number; ok: true; value: unknown }
  | { t: "reply"; id: number; ok: false; error: string }
  /** The job's progress before its reply (`JobMessageInfo.progress`). */
  | { t: "progress"; id: number; message: unknown }
  | { t: "hb"; node_id: string; message: unknown };

/** What of `process` (a forked child) the link uses: its IPC channel. */
export interface IpcChannel {
  send?:
    | ((
        message: unknown,
        handle: undefined,
        options: undefined,
        callback: (err: Error | null) => void,
      ) => boolean)
    | undefined;
  connected?: boolean | undefined;
  on(event: "message", listener: (message: unknown) => void): unknown;
  off(event: "message", listener: (message: unknown) => void): unknown;
}

/** The agent child's AgentLink over its IPC channel to the controller (`process` in the child). */
export function ipcAgentLink(channel: IpcChannel): AgentLink {
  const listeners = new Set<(message: unknown) => void>();
  // Resolves once the last message sent has been handed to the channel.
  let lastSend: Promise<void> = Promise.resolve();
  const send = (message: FromAgentChild) => {
    if (!channel.connected || !channel.send) return;
    lastSend = new Promise<void>((resolve) => {
      channel.send?.(message, undefined, undefined, () => resolve());
    });
  };
  return {
    kind: "in-process",
    flush: () => lastSend,
    serveJobs(_nodeId, handler: JobHandler) {
      const inflight = new Set<Promise<void>>();
      const onMessage = (raw: unknown) => {
        const m = raw as ToAgentChild;
        if (typeof m !== "object" || m === null || m.t !== "job") return;
        let replied = false;
        const progress = (message: unknown) => {
          if (!replied) send({ t: "progress", id: m.id, message });
        };
        const done = handler(m.message, { replyExpected: m.reply, ...(m.reply ? { progress } : {}) })
          .finally(() => {
            replied = true;
          })
          .then(
            (value) => {
              if (m.reply) send({ t: "reply", id: m.id, ok: true, value: value ?? null });
            },
            (err: unknown) => {
              if (m.reply)
                send({
                  t: "reply",
                  id: m.id,
                  ok: false,
                  error: err instanceof Error ? err.message : String(err),
                });
            },
          )
          .finally(() => inflight.delete(done));
        inflight.add(done);
      };
      channel.on("message", onMessage);
      listeners.add(onMessage);
      return async () => {
        channel.off("message", onMessage);
        listeners.delete(onMessage);
        await Promise.allSettled([...inflight]);
        await lastSend;
      };
    },
    publishHeartbeat(nodeId, message) {
      send({ t: "hb", node_id: nodeId, message });
    },
    async close() {
      for (const l of listeners) channel.off("message", l);
      listeners.clear();
      await lastSend;
    },
  };
}
