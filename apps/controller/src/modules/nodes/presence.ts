import type { ControllerTransport } from "@vantage/transport";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { logRoundFailure } from "../../db/availability.js";
import type { Database } from "../../db/schema.js";
import { type NodeDirectory, type NodeState, PendingJobs, readNodeRows } from "./directory.js";
import { heartbeatCheck, nodeStateOf, sameListing } from "./heartbeat-intake.js";
import { LiveIndex } from "./live-index.js";
import { upsertNodes } from "./repo.js";

export interface PresenceOptions {
  db: Kysely<Database>;
  transport: ControllerTransport;
  log: Logger;
  /** How often buffered heartbeats are written (one multi-row upsert per flush). */
  flushIntervalMs?: number;
  /** At most one version notice (and warn line) per node this often, while its heartbeats are refused. */
  versionNoticeIntervalMs?: number;
  /** At most one warn line per node this often about heartbeats dropped as malformed (or misaddressed). */
  malformedLogIntervalMs?: number;
  /** A node without a heartbeat for this long is offline (`VANTAGE_NODE_OFFLINE_AFTER_MS`): logged once. */
  offlineAfterMs?: number;
  /**
   * How old `list()`'s snapshot may get while only plain "still alive" heartbeats arrive (default 1000 ms).
   * Anything else (a new node, a change of its fields, draining, a node coming back, a heartbeat that keeps
   * a node from going offline within this time) makes the next `list()` a new snapshot at once.
   */
  snapshotMaxAgeMs?: number;
  /**
   * Whether this directory also speaks for the presence role (default true): writes the `nodes` table,
   * tells agents of another protocol version, and logs nodes registering, going quiet, returning and
   * dropped heartbeats. False on a controller that picks nodes without that role (`api`, `scheduler`):
   * the same directory from the same heartbeats, writing and saying nothing that another controller's
   * presence already does. `startWriting()` turns it on later.
   */
  writes?: boolean;
  /** After a failed load of the known nodes (database away), the next attempt this much later (default 2000 ms). */
  loadRetryMs?: number;
}

export interface Presence extends NodeDirectory {
  /**
   * Loads the nodes already in the database (once); resolves when they are in the directory, or when that
   * first attempt failed: the directory then serves what heartbeats bring and loads again in the background
   * every `loadRetryMs` until a load succeeds.
   */
  readonly ready: Promise<void>;
  /** Writes buffered heartbeats now (tests, shutdown). */
  flush(): Promise<void>;
  /** From now on as with `writes: true` (the presence role starts on a process that already follows heartbeats). */
  startWriting(): void;
  stop(): Promise<void>;
}

/**
 * Nodes per upsert statement: one statement per flush for 10,000 agents beating every 5 s (2,000 a second),
 * never one per heartbeat; bounded so a backlog after an outage is written in steps.
 */
const batchSize = 5000;

/**
 * Heartbeats → an in-memory directory (used to pick nodes and for `GET /v1/nodes`), so node choice never
 * waits for the database; with `writes` (the presence role), batched into the `nodes` table too, which
 * keeps nodes known across restarts (every directory loads it once at start). The node id is taken from
 * the subject only; a payload naming another node is dropped.
 */
export function startPresence(opts: PresenceOptions): Presence {
  const { db, log } = opts;
  let writing = opts.writes ?? true;
  const nodes = new Map<string, NodeState>();
  const dirty = new Set<string>();
  const heartbeats = heartbeatCheck(opts, () => writing);
  const jobs = new PendingJobs();
  // Nodes whose heartbeats stopped (logged once when they do, and again when they come back).
  const silent = new Set<string>();
  const offlineAfterMs = opts.offlineAfterMs ?? 15_000;
  const snapshotMaxAgeMs = opts.snapshotMaxAgeMs ?? 1000;
  const loadRetryMs = opts.loadRetryMs ?? 2000;
  // The online nodes and node choice's indexes, updated with every change below (issue #34).
  const live = new LiveIndex(
    offlineAfterMs,
    (id) => nodes.get(id),
    (id) => jobs.pending(id),
    () => (loadDone ? undefined : load()),
  );
  // What `list()` hands out until the next change (see NodeDirectory.list). Plain heartbeats (only
  // `lastSeen`, the load) do not end it at once: 10,000 agents send 2,000 a second, and every reader derives
  // things from a snapshot (the node list's JSON, node selection's candidates). They set `beatsPending`,
  // and the next `list()` once the snapshot is `snapshotMaxAgeMs` old hands out a new one.
  let snapshot: readonly NodeState[] | undefined;
  let snapshotAt = 0;
  let beatsPending = false;
  let flushing: Promise<void> = Promise.resolve();
  let stopped = false;

  const onHeartbeat = (nodeId: string, message: unknown) => {
    if (stopped) return;
    const hb = heartbeats.accept(nodeId, message);
    if (!hb) return;
    const previous = nodes.get(nodeId);
    if (silent.delete(nodeId)) {
      if (writing) log.info({ node_id: nodeId }, "node back online: heartbeats again");
    } else if (previous?.markedOfflineAt !== undefined) {
      log.info({ node_id: nodeId }, "node back online: heartbeat after a probe found it offline");
    }
    const now = Date.now();
    const next = nodeStateOf(nodeId, hb, previous, now);
    nodes.set(nodeId, next);
    live.update(next, now);
    // A snapshot may show a node's previous heartbeat for up to snapshotMaxAgeMs: only while that one
    // keeps it online as long, so a node's status in a snapshot is always its status now.
    if (
      !previous ||
      !sameListing(previous, next) ||
      now - previous.lastSeen > offlineAfterMs - snapshotMaxAgeMs
    ) {
      snapshot = undefined;
    } else beatsPending = true;
    if (!writing) return;
    dirty.add(nodeId);
    // New nodes and state changes reach the table at once; plain "still alive" beats wait for the timer.
    if (
      !previous ||
      previous.draining !== next.draining ||
      previous.version !== next.version ||
      previous.publicKey !== next.publicKey
    ) {
      if (!previous) log.info({ node_id: nodeId, node_name: next.name }, "node registered");
      if (next.draining) log.info({ node_id: nodeId }, "node draining: offline");
      queueMicrotask(() => void schedule());
    }
  };

  const unsubscribe = opts.transport.subscribeHeartbeats(onHeartbeat);

  const write = async () => {
    while (dirty.size > 0) {
      const ids = [...dirty].slice(0, batchSize);
      for (const id of ids) dirty.delete(id);
      const batch = ids.map((id) => nodes.get(id)).filter((n): n is NodeState => n !== undefined);
      try {
        await upsertNodes(db, batch);
      } catch (err) {
        for (const id of ids) dirty.add(id);
        // Once a second while the database is away: the outage itself is logged once, by the gate.
        logRoundFailure(log, err, "presence: writing heartbeats failed; retrying on the next flush", "error");
        return;
      }
    }
  };
  // One write at a time; a flush asked for while one runs waits for it and then writes what is left.
  const schedule = () => {
    flushing = flushing.then(write);
    return flushing;
  };

  // Once per flush: nodes that have just gone quiet (a draining node said goodbye and is logged as such).
  const noticeSilence = () => {
    const now = Date.now();
    for (const n of nodes.values()) {
      if (n.draining || silent.has(n.id) || now - n.lastSeen <= offlineAfterMs) continue;
      silent.add(n.id);
      // Already logged as offline when a probe found it gone.
      if (n.markedOfflineAt !== undefined) continue;
      log.warn(
        { node_id: n.id, last_seen: new Date(n.lastSeen).toISOString() },
        `node offline: no heartbeat for ${Math.round((now - n.lastSeen) / 1000)} s`,
      );
    }
  };

  const timer = setInterval(() => {
    if (writing) noticeSilence();
    heartbeats.prune();
    void schedule();
  }, opts.flushIntervalMs ?? 1000);
  timer.unref();

  const current = (): readonly NodeState[] => {
    const now = Date.now();
    if (snapshot && beatsPending && (now - snapshotAt >= snapshotMaxAgeMs || now < snapshotAt)) {
      snapshot = undefined;
    }
    if (!snapshot) {
      snapshot = [...nodes.values()];
      snapshotAt = now;
      beatsPending = false;
    }
    return snapshot;
  };

  // Loaded on first use, not at construction: building an app must not touch the database by itself. A
  // failed load (the database away) is retried in the background; meanwhile heartbeats fill the directory.
  let loaded: Promise<void> | undefined;
  let loadDone = false;
  let attempt: Promise<void> = Promise.resolve();
  let retry: NodeJS.Timeout | undefined;
  let loadFailed = false;
  const loadOnce = async () => {
    let rows: NodeState[];
    try {
      rows = await readNodeRows(db);
    } catch (err) {
      if (!loadFailed) {
        log.warn(
          { err, retry_ms: loadRetryMs },
          "loading known nodes failed: serving the nodes heard from, loading again in the background",
        );
      }
      loadFailed = true;
      if (!stopped) {
        retry = setTimeout(() => {
          retry = undefined;
          attempt = loadOnce();
        }, loadRetryMs);
        retry.unref();
      }
      return;
    }
    for (const r of rows) {
      if (nodes.has(r.id)) continue;
      nodes.set(r.id, r);
      live.update(r);
      // Known from before this start and quiet since: not news worth a warning.
      if (Date.now() - r.lastSeen > offlineAfterMs) silent.add(r.id);
    }
    snapshot = undefined;
    if (loadFailed) log.info({ nodes: rows.length }, "known nodes loaded");
  };
  const load = () => {
    if (!loaded) {
      attempt = loadOnce();
      loaded = attempt.then(() => {
        loadDone = true;
      });
    }
    return loaded;
  };

  return {
    get ready() {
      return load();
    },
    async list() {
      await load();
      return current();
    },
    peek: () => (loadDone ? current() : undefined),
    live,
    reserve(id) {
      jobs.reserve(id);
      live.reload(id);
    },
    release(id) {
      jobs.release(id);
      live.reload(id);
    },
    pending: (id) => jobs.pending(id),
    markOffline(id) {
      const node = nodes.get(id);
      if (!node || node.markedOfflineAt !== undefined) return;
      // A new object: the next heartbeat replaces it with one without the mark (the node is back).
      const marked = { ...node, markedOfflineAt: Date.now() };
      nodes.set(id, marked);
      live.update(marked);
      snapshot = undefined;
      log.warn(
        { node_id: id },
        "node marked offline by a probe (no responders, or shutting down) until its next heartbeat",
      );
    },
    flush: () => schedule(),
    startWriting() {
      writing = true;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      clearTimeout(retry);
      unsubscribe();
      await attempt;
      await schedule();
    },
  };
}
