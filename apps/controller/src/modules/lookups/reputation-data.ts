import { guardedRequest, type LookupContext, ReputationDataHolder } from "@vantage/lookups";
import type { Logger } from "pino";
import type { Config, ReputationSource } from "../../config.js";
import { ipCacheDir } from "./ip-data.js";

/** The reputation datasets of this process: opened on first use, reloaded on SIGHUP, refreshed from URLs. */
export interface ReputationData {
  /** The holder the lookups read; the first call opens the files (`VANTAGE_REPUTATION_DATA_DIR` or shipped). */
  current(): Promise<ReputationDataHolder>;
  /**
   * Reads the directory again on a worker thread and swaps it in whole; when that fails the old data keeps
   * answering, the reason is logged (once) and the promise rejects.
   */
  reload(): Promise<void>;
  /** Fetches every configured source once and swaps each good one in (failures are logged and kept out). */
  refresh(): Promise<{ replaced: string[]; failed: string[] }>;
  /** Stops the refresh timer. */
  stop(): void;
  /** The holder, synchronously; undefined until the files have been opened (the direct route's read). */
  loaded(): ReputationDataHolder | undefined;
}

/** A dataset older than this at start earns a warning naming `VANTAGE_REPUTATION_SOURCES`. */
const STALE_AFTER_DAYS = 30;
const MAX_SOURCE_BYTES = 32 * 1024 * 1024;

export function openReputationDataFor(
  config: Config,
  log: Logger,
  lookup: LookupContext["lookup"],
): ReputationData {
  let holder: ReputationDataHolder | undefined;
  let opening: Promise<ReputationDataHolder> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const sources = config.VANTAGE_REPUTATION_SOURCES;
  const dir = config.VANTAGE_REPUTATION_DATA_DIR;

  const open = (): Promise<ReputationDataHolder> => {
    opening ??= ReputationDataHolder.open({
      dir,
      offThread: true,
      // Beside the compiled IP data: a start whose files have not changed reads the compiled datasets.
      cacheDir: ipCacheDir(config),
      onEvent: (event) => log.info({ event }, "reputation data"),
    }).then(
      (opened) => {
        holder = opened;
        log.info(
          { dir: dir ?? "shipped", loaded: opened.loaded, missing: opened.missing },
          "reputation data loaded",
        );
        warnIfStale(opened);
        return opened;
      },
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };

  const warnIfStale = (h: ReputationDataHolder) => {
    const refreshed = new Set(sources.map((s) => (s.provider ? `${s.dataset}/${s.provider}` : s.dataset)));
    const old: Record<string, string> = {};
    for (const [name, version] of Object.entries(h.versions)) {
      const date = Date.parse(version.slice(0, 10));
      if (Number.isFinite(date) && Date.now() - date > STALE_AFTER_DAYS * 86_400_000 && !refreshed.has(name))
        old[name] = version;
    }
    if (Object.keys(old).length > 0) {
      log.warn(
        { datasets: old },
        `reputation datasets older than ${STALE_AFTER_DAYS} days: set VANTAGE_REPUTATION_SOURCES to refresh them (docs/reputation.md)`,
      );
    }
  };

  const fetchOne = async (h: ReputationDataHolder, s: ReputationSource): Promise<void> => {
    // The URL is the operator's configuration, not a caller's target: the guard does not apply to it.
    const res = await guardedRequest(
      s.url,
      { timeoutMs: 30_000, maxBytes: MAX_SOURCE_BYTES, maxRedirects: 3 },
      { allowPrivate: true, lookup },
    );
    if (res.status !== 200) throw new Error(`${s.url} answered HTTP ${res.status}`);
    if (res.truncated) throw new Error(`${s.url} sent more than ${MAX_SOURCE_BYTES} bytes`);
    const version = `fetched-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}Z`;
    h.replaceDataset(s.dataset, res.body.toString("utf8"), version, { provider: s.provider });
  };

  const refresh = async () => {
    const h = holder ?? (await open());
    const replaced: string[] = [];
    const failed: string[] = [];
    for (const s of sources) {
      const name = s.provider ? `${s.dataset}/${s.provider}` : s.dataset;
      try {
        await fetchOne(h, s);
        replaced.push(name);
      } catch (err) {
        failed.push(name);
        log.warn({ err, dataset: name, url: s.url }, "reputation dataset refresh failed; the old data stays");
      }
    }
    if (replaced.length > 0) log.info({ replaced, versions: h.versions }, "reputation datasets refreshed");
    return { replaced, failed };
  };

  if (sources.length > 0) {
    const tick = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        void refresh().finally(tick);
      }, config.VANTAGE_REPUTATION_REFRESH_S * 1000);
      timer.unref();
    };
    // At start (once the files are open), then every VANTAGE_REPUTATION_REFRESH_S.
    setImmediate(() => {
      if (!stopped)
        void refresh()
          .catch(() => {})
          .finally(tick);
    });
  }

  return {
    current: async () => holder ?? (await open()),
    async reload() {
      const h =
        holder ??
        (await open().catch((error: Error) => {
          log.error(`reputation data failed to load: ${error.message}`);
          throw error;
        }));
      const started = performance.now();
      await h.reload().catch((error: Error) => {
        // The holder's message says it all (the reason, that the old data answers): logged once, here.
        log.error(error.message);
        throw error;
      });
      const ms = Math.round(performance.now() - started);
      log.info({ versions: h.versions, ms }, "reputation data reloaded");
    },
    refresh,
    loaded: () => holder,
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
