import { readFileSync } from "node:fs";
import {
  type Authenticator,
  connect,
  credsAuthenticator,
  errors,
  headers,
  type Msg,
  type NatsConnection,
  nkeyAuthenticator,
  type Subscription,
} from "@nats-io/transport-node";
import { nodeIdFromSubject, subjects } from "@vantage/protocol";
import { PendingJobs } from "./crash-notices.js";
import { PROGRESS_HEADER, ReplyMux } from "./nats-replies.js";
import { type AgentLink, type ControllerTransport, TransportError } from "./types.js";

export interface NatsOptions {
  /** One URL or several, comma-separated (servers of one cluster); tried for ever, in turn. */
  servers: string;
  /**
   * Try the servers in the order given (the first is preferred, the rest are fallbacks) instead of
   * shuffling them, which spreads clients over a cluster.
   */
  noRandomize?: boolean | undefined;
  name: string;
  /** Path to a file holding an nkey seed (`SU…`). */
  nkeySeedFile?: string | undefined;
  /** Path to a `.creds` file (decentralised JWT auth). */
  credsFile?: string | undefined;
  /** Signs the login instead of the two files above (the agent signs its nkey with Node's own Ed25519). */
  authenticator?: Authenticator | undefined;
  /** Inbox prefix for replies; agents that may not subscribe `_INBOX.>` never make requests anyway. */
  inboxPrefix?: string;
  onStatus?: (event: { type: string; data?: unknown }) => void;
  /** PEM file of the CA that signed the NATS server's certificate; setting it requires TLS. */
  tlsCaFile?: string | undefined;
}

/**
 * NATS refused the credentials (unknown or removed key, expired JWT): retrying cannot help, an operator
 * has to act. Unreachable servers are retried by the connection itself and never end up here.
 */
export function isNatsAuthorizationError(err: unknown): boolean {
  return err instanceof errors.AuthorizationError || err instanceof errors.UserAuthenticationExpiredError;
}

export async function connectNats(opts: NatsOptions): Promise<NatsConnection> {
  const authenticator =
    opts.authenticator ??
    (opts.credsFile
      ? credsAuthenticator(readFileSync(opts.credsFile))
      : opts.nkeySeedFile
        ? nkeyAuthenticator(new TextEncoder().encode(readFileSync(opts.nkeySeedFile, "utf8").trim()))
        : undefined);
  const nc = await connect({
    servers: opts.servers.split(",").map((s) => s.trim()),
    name: opts.name,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    waitOnFirstConnect: true,
    noRandomize: opts.noRandomize ?? false,
    // Every request would otherwise build two Error objects up front (stack captured) just in case it
    // fails: a tenth of the controller's CPU under probe load. Failures still arrive as the same error
    // classes (timeout, no responders), which the transports map to TransportError codes anyway.
    noAsyncTraces: true,
    ...(opts.inboxPrefix ? { inboxPrefix: opts.inboxPrefix } : {}),
    ...(authenticator ? { authenticator } : {}),
    ...(opts.tlsCaFile ? { tls: { caFile: opts.tlsCaFile } } : {}),
  });
  if (opts.onStatus) {
    const onStatus = opts.onStatus;
    void (async () => {
      for await (const s of nc.status()) {
        // `error` events carry `error`, the others `data`.
        const detail = "error" in s ? s.error : "data" in s ? s.data : undefined;
        onStatus({ type: s.type, data: detail });
      }
    })();
  }
  return nc;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (v: unknown) => encoder.encode(JSON.stringify(v ?? null));
const decode = (b: Uint8Array): unknown => (b.length === 0 ? null : JSON.parse(decoder.decode(b)));

export function natsControllerTransport(
  nc: NatsConnection,
  ownsConnection = true,
  inboxPrefix = "_INBOX",
): ControllerTransport {
  const replies = new ReplyMux(nc, inboxPrefix);
  const pending = new PendingJobs();
  const heartbeatHandlers = new Set<(nodeId: string, message: unknown) => void>();
  // One subscription to every heartbeat, opened by the first request or heartbeat handler: it feeds the
  // handlers and watches for crash notices (an agent's last heartbeat listing the jobs it had in flight).
  let heartbeats: Subscription | undefined;
  const watchHeartbeats = () => {
    if (heartbeats || nc.isClosed()) return;
    heartbeats = nc.subscribe(subjects.allHeartbeats, {
      callback: (err, msg) => {
        if (err) return;
        // Without handlers only crash notices matter: skip the decoding of plain heartbeats.
        if (heartbeatHandlers.size === 0 && !mentionsCrashedJobs(msg.data)) return;
        const nodeId = nodeIdFromSubject(msg.subject);
        if (!nodeId) return;
        let payload: unknown;
        try {
          payload = decode(msg.data);
        } catch {
          return; // a heartbeat that is not JSON is dropped; presence validates the rest
        }
        pending.heard(nodeId, payload);
        for (const h of heartbeatHandlers) h(nodeId, payload);
      },
    });
  };
  // Down from a `disconnect` until the `reconnect`: nats.js keeps publishing into its buffer meanwhile.
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") {
        up = false;
        // The requests in flight when the connection drops are answered now (`transport_lost`), not at
        // their deadline. Their job may have died with the server, or reached the agent, whose reply
        // is lost while this controller's inbox has no subscription on any server: nothing tells which.
        // Sending them again after the reconnect is no option: agents do not remember job ids, so a job
        // that had arrived would run twice. A reply that would still have come after the reconnect is
        // dropped (a late reply to a settled request is ignored); the caller knows at once, and
        // can try again as soon as the connection is back (usually well under a second).
        replies.rejectAll(new TransportError("transport_lost", "NATS connection lost"));
      } else if (s.type === "reconnect") up = true;
    }
  })();
  return {
    kind: "nats",
    connected: () => up && !nc.isClosed(),
    // A PING after the SUBs: its PONG means the server has processed them.
    flush: () => nc.flush(),
    async request(nodeId, message, timeoutMs, onProgress) {
      watchHeartbeats();
      let reply: Msg;
      let untrack = () => {};
      let open = true;
      // Progress that is not JSON is dropped (the reply decides the job); none after the request settled.
      const progress =
        onProgress &&
        ((msg: Msg) => {
          if (!open) return;
          let payload: unknown;
          try {
            payload = decode(msg.data);
          } catch {
            return;
          }
          onProgress(payload);
        });
      try {
        reply = await new Promise<Msg>((resolve, reject) => {
          untrack = pending.track(nodeId, message, reject);
          replies.request(subjects.job(nodeId), encode(message), timeoutMs, progress).then(resolve, reject);
        });
      } catch (err) {
        throw toTransportError(err, nodeId, timeoutMs);
      } finally {
        open = false;
        untrack();
      }
      return decode(reply.data);
    },
    notify(nodeId, message) {
      if (!nc.isClosed()) nc.publish(subjects.job(nodeId), encode(message));
    },
    subscribeHeartbeats(handler) {
      // Each handler its own function object, so one handler added twice is two subscribers (as before).
      const h = (nodeId: string, message: unknown) => handler(nodeId, message);
      heartbeatHandlers.add(h);
      watchHeartbeats();
      return () => {
        heartbeatHandlers.delete(h);
      };
    },
    async close() {
      heartbeatHandlers.clear();
      heartbeats?.unsubscribe();
      heartbeats = undefined;
      replies.close();
      if (ownsConnection && !nc.isClosed()) await nc.drain();
    },
  };
}

const crashedJobsKey = new TextEncoder().encode('"crashed_jobs"');

/** The headers of a progress message (one object: nats.js only reads them when publishing). */
const progressHeaders = (() => {
  const h = headers();
  h.set(PROGRESS_HEADER, "1");
  return h;
})();

/** Whether a heartbeat's bytes could be a crash notice (a cheap test before decoding it). */
function mentionsCrashedJobs(data: Uint8Array): boolean {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(crashedJobsKey) !== -1;
}

export function natsAgentLink(nc: NatsConnection, ownsConnection = true): AgentLink {
  const subs = new Set<Subscription>();
  return {
    kind: "nats",
    // A PING after the SUBs: its PONG means the server has processed them.
    flush: () => nc.flush(),
    serveJobs(nodeId, handler) {
      const inflight = new Set<Promise<void>>();
      const sub = nc.subscribe(subjects.job(nodeId), {
        callback: (err, msg) => {
          if (err) return;
          let payload: unknown;
          try {
            payload = decode(msg.data);
          } catch {
            if (msg.reply)
              msg.respond(encode({ ok: false, error: { code: "bad_message", message: "job is not JSON" } }));
            return;
          }
          if (!msg.reply) {
            // A notification: the handler hears it, nobody hears back.
            const done = handler(payload, { replyExpected: false })
              .then(
                () => undefined,
                () => undefined,
              )
              .finally(() => inflight.delete(done));
            inflight.add(done);
            return;
          }
          let replied = false;
          const progress = (m: unknown) => {
            if (!replied && !nc.isClosed()) msg.respond(encode(m), { headers: progressHeaders });
          };
          const done = handler(payload, { replyExpected: true, progress })
            .finally(() => {
              replied = true;
            })
            .then(
              (reply) => void msg.respond(encode(reply)),
              (e: unknown) =>
                void msg.respond(
                  encode({
                    ok: false,
                    error: { code: "agent_error", message: e instanceof Error ? e.message : String(e) },
                  }),
                ),
            )
            .finally(() => inflight.delete(done));
          inflight.add(done);
        },
      });
      subs.add(sub);
      return async () => {
        subs.delete(sub);
        sub.unsubscribe();
        await Promise.allSettled([...inflight]);
        if (!nc.isClosed()) await nc.flush().catch(() => {});
      };
    },
    publishHeartbeat(nodeId, message) {
      if (!nc.isClosed()) nc.publish(subjects.heartbeat(nodeId), encode(message));
    },
    async close() {
      for (const s of subs) s.unsubscribe();
      subs.clear();
      if (ownsConnection && !nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}

function toTransportError(err: unknown, nodeId: string, timeoutMs: number): TransportError {
  if (err instanceof TransportError) {
    if (err.code === "transport_lost")
      return new TransportError(
        "transport_lost",
        `the controller lost its connection to NATS while node ${nodeId}'s job was out; it may or may not have run`,
      );
    if (err.code === "no_responders")
      return new TransportError("no_responders", `no agent serves node ${nodeId}`);
    if (err.code === "timeout")
      return new TransportError("timeout", `node ${nodeId} did not answer within ${timeoutMs} ms`);
    return err;
  }
  if (
    err instanceof errors.NoRespondersError ||
    (err instanceof errors.RequestError && err.isNoResponders())
  ) {
    return new TransportError("no_responders", `no agent serves node ${nodeId}`);
  }
  if (err instanceof errors.TimeoutError) {
    return new TransportError("timeout", `node ${nodeId} did not answer within ${timeoutMs} ms`);
  }
  if (err instanceof errors.ClosedConnectionError || err instanceof errors.DrainingConnectionError) {
    return new TransportError("closed", "NATS connection is closed");
  }
  return new TransportError("transport_error", err instanceof Error ? err.message : String(err));
}
