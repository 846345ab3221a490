import type { AppDeps, Module, Worker } from "../../deps.js";
import type { Authenticator } from "../../http/authenticator.js";
import type { Router } from "../../http/router.js";
import { isOnline, type NodeDirectory, type NodeState } from "./directory.js";
import { NodeList, type NodeView, toNodeViews } from "./node-list.js";
import { type Presence, startPresence } from "./presence.js";
import { registerListNodes } from "./routes/list-nodes.js";
import { registerListSelectors } from "./routes/list-selectors.js";

export {
  isOnline,
  type LiveGroup,
  type LiveNodes,
  type LivePool,
  loadOf,
  type NodeDirectory,
  type NodeState,
  PendingJobs,
} from "./directory.js";
/** For directories kept outside presence (tests of node choice, benchmarks). */
export { LiveIndex } from "./live-index.js";
export {
  hasTags,
  type LocationMatch,
  MAX_SELECTOR_LENGTH,
  MAX_SELECTOR_TERMS,
  matchesPlace,
  parseSelector,
  type SelectorInfo,
  selectorsOf,
  vocabularyOf,
} from "./locations.js";
export type { NodeView } from "./node-list.js";
export { type Presence, type PresenceOptions, startPresence } from "./presence.js";
export { nodeSchema } from "./routes/list-nodes.js";

/** What other modules ask of the node directory. */
export interface NodesService {
  /**
   * The directory probes pick nodes from: in memory, fed by heartbeats, on every controller that runs
   * `api`, `scheduler` or `presence` (the table only seeds it at start), so node choice never waits for the
   * database. On a controller with none of them (notifier only: it picks no nodes) it is empty.
   */
  readonly directory: NodeDirectory;
  /** Every known node in the API's view, ordered by id. */
  list(): Promise<NodeView[]>;
  /** The nodes online now (fresh heartbeat, not draining, not found offline by a probe since). */
  online(): Promise<NodeState[]>;
}

/** A worker holding the module's in-memory directory (one heartbeat subscription per process). */
export interface DirectoryWorker extends Worker {
  /**
   * Subscribes to heartbeats now (the first worker to do so) and returns the in-memory directory, without
   * waiting for the nodes already in the table (they load on first use): the synchronous half of
   * `start()`, for test harnesses. Each call holds the directory until one call of this worker's `stop()`.
   */
  attach(): Presence;
}

export interface NodesModule extends Module<NodesService> {
  /**
   * The presence role: heartbeats → the in-memory directory and the `nodes` table; the node log lines and
   * version notices. `start()` subscribes at once and resolves when the nodes already known are loaded (or
   * their load failed: it is then retried in the background).
   */
  readonly presence: DirectoryWorker;
  /**
   * The roles that pick nodes (`api`, `scheduler`): the same directory, which writes and logs nothing
   * unless the presence role runs here too. The directory stops once every worker holding it has stopped.
   */
  readonly watcher: DirectoryWorker;
}

/** The directory of a controller that holds none (notifier only): no node, nothing to pick. */
const noNodes: NodeDirectory = {
  list: async () => [],
  peek: () => [],
  reserve() {},
  release() {},
  pending: () => 0,
  markOffline() {},
};

/** What the module is handed: the credential check for the node list's optional credentials. */
export interface NodesServices {
  authenticator: Authenticator;
}

export function createNodes(deps: AppDeps, services: NodesServices): NodesModule {
  const offlineAfterMs = deps.config.VANTAGE_NODE_OFFLINE_AFTER_MS;
  let memory: Presence | undefined;
  let holders = 0;
  const source = (): NodeDirectory => memory ?? noNodes;
  const directory: NodeDirectory = {
    list: () => source().list(),
    peek: () => source().peek?.(),
    get live() {
      return source().live;
    },
    reserve: (id) => source().reserve(id),
    release: (id) => source().release(id),
    pending: (id) => source().pending(id),
    markOffline: (id) => source().markOffline(id),
  };
  const worker = (writes: boolean): DirectoryWorker => {
    // Holds taken by this worker's `attach()`/`start()` and not yet given back by `stop()` (the api and
    // scheduler roles share the watcher: each stop gives back one).
    let held = 0;
    return {
      attach() {
        if (!memory) {
          memory = startPresence({
            db: deps.db.kysely,
            transport: deps.transport,
            log: deps.log,
            offlineAfterMs,
            writes,
          });
        } else if (writes) memory.startWriting();
        held++;
        holders++;
        return memory;
      },
      async start() {
        await this.attach().ready;
      },
      async stop() {
        if (held === 0) return;
        held--;
        // The directory keeps serving what it knew; only the subscription and the writes end.
        if (--holders === 0) await memory?.stop();
      },
    };
  };
  const presence = worker(true);
  const watcher = worker(false);
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
      registerListSelectors(
        app,
        directory,
        offlineAfterMs,
        deps.config.VANTAGE_API_FORM,
        services.authenticator,
      );
      registerListNodes(
        app,
        new NodeList(directory, offlineAfterMs),
        deps.config.VANTAGE_API_FORM,
        services.authenticator,
      );
    },
    presence,
    watcher,
    // The api and scheduler roles pick nodes; they share the watcher (one directory, one subscription).
    workers: [
      { role: "presence", name: "presence", start: () => presence.start(), stop: () => presence.stop() },
      { role: "scheduler", name: "node-directory", start: () => watcher.start(), stop: () => watcher.stop() },
      { role: "api", name: "node-directory", start: () => watcher.start(), stop: () => watcher.stop() },
    ],
  };
}
