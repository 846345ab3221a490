import type { AppDeps, Module, Worker } from "../../deps.js";
import type { Router } from "../../http/router.js";
import { dbNodeDirectory, isOnline, type NodeDirectory, type NodeState } from "./directory.js";
import { NodeList, type NodeView, toNodeViews } from "./node-list.js";
import { type Presence, startPresence } from "./presence.js";
import { registerListNodes } from "./routes/list-nodes.js";

export { isOnline, loadOf, type NodeDirectory, type NodeState } from "./directory.js";
export type { NodeView } from "./node-list.js";
export { type Presence, type PresenceOptions, startPresence } from "./presence.js";
export { nodeSchema } from "./routes/list-nodes.js";

/** What other modules ask of the node directory. */
export interface NodesService {
  /**
   * The directory probes pick nodes from: the presence role's memory (fed by heartbeats) on a controller
   * that runs it, else the `nodes` table (cached for a second).
   */
  readonly directory: NodeDirectory;
  /** Every known node in the API's view, ordered by id. */
  list(): Promise<NodeView[]>;
  /** The nodes online now (fresh heartbeat, not draining, not found offline by a probe since). */
  online(): Promise<NodeState[]>;
}

/** The presence role's worker. */
export interface PresenceWorker extends Worker {
  /**
   * Subscribes to heartbeats now and returns the in-memory directory, without waiting for the nodes already
   * in the table (they load on first use): the synchronous half of `start()`, for test harnesses.
   */
  attach(): Presence;
}

export interface NodesModule extends Module<NodesService> {
  /**
   * The presence role: heartbeats → the in-memory directory and the `nodes` table. `start()` subscribes at
   * once and resolves when the nodes already known are loaded.
   */
  readonly presence: PresenceWorker;
}

export function createNodes(deps: AppDeps): NodesModule {
  const offlineAfterMs = deps.config.VANTAGE_NODE_OFFLINE_AFTER_MS;
  const fromTable = dbNodeDirectory(deps.db.kysely, { log: deps.log });
  let presence: Presence | undefined;
  const source = (): NodeDirectory => presence ?? fromTable;
  const directory: NodeDirectory = {
    list: () => source().list(),
    peek: () => source().peek?.(),
    reserve: (id) => source().reserve(id),
    release: (id) => source().release(id),
    pending: (id) => source().pending(id),
    markOffline: (id) => source().markOffline(id),
  };
  return {
    service: {
      directory,
      async list() {
        return toNodeViews(await directory.list(), offlineAfterMs);
      },
      async online() {
        const now = Date.now();
        return (await directory.list()).filter((n) => isOnline(n, offlineAfterMs, now));
      },
    },
    routes(app: Router) {
      registerListNodes(app, new NodeList(directory, offlineAfterMs), deps.config.VANTAGE_API_FORM);
    },
    presence: {
      attach() {
        presence ??= startPresence({
          db: deps.db.kysely,
          transport: deps.transport,
          log: deps.log,
          offlineAfterMs,
        });
        return presence;
      },
      async start() {
        await this.attach().ready;
      },
      async stop() {
        // The directory keeps serving what it knew; only the subscription and the writes end.
        await presence?.stop();
      },
    },
  };
}
