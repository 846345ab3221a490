import { fileURLToPath } from "node:url";
import { IP_DATA_ATTRIBUTION, IpDataHolder, type IpDataSource } from "@vantage/lookups";
import type { Logger } from "pino";
import type { Config } from "../../config.js";

/** Credit the IP data's licences ask for (CC BY 4.0: DB-IP, RouteViews, NRO), sent with every IP answer. */
export const IP_ATTRIBUTION: string = IP_DATA_ATTRIBUTION.text;

/** The IP data of this process: opened on first use, swapped whole by `reload`. */
export interface IpData {
  /** The data now answering; the first call opens it (and compiles its cache on a first start). */
  current(): Promise<IpDataSource>;
  /**
   * Opens the files again (`VANTAGE_IP_DATA_DIR`, else the shipped ones) on a worker thread and, once they
   * have loaded whole, swaps them in: lookups in flight finish on the old data, later ones read the new.
   * When the new files fail to load, the old data keeps answering, the reason is logged (once) and the
   * promise rejects. Resolves to the version.
   */
  reload(): Promise<string>;
  /** The loaded data's version; undefined before the first use. */
  version(): string | undefined;
  /** The data now answering, synchronously; undefined until it has loaded (the direct route's read). */
  loaded(): IpDataSource | undefined;
}

/**
 * Where the compiled ASN table is kept unless `VANTAGE_IP_CACHE_DIR` says otherwise: the checkout's
 * `node_modules/.cache/vantage-ip-data/`, shared by every process of this install (controllers, tests,
 * benchmarks) and filled at install time by `scripts/ensure-tools.sh`, so no start pays the compile.
 */
export const DEFAULT_IP_CACHE_DIR = fileURLToPath(
  new URL("../../../../../node_modules/.cache/vantage-ip-data", import.meta.url),
);

export function ipCacheDir(config: Pick<Config, "VANTAGE_IP_CACHE_DIR">): string {
  return config.VANTAGE_IP_CACHE_DIR ?? DEFAULT_IP_CACHE_DIR;
}

export function openIpDataFor(config: Config, log: Logger): IpData {
  const options = {
    dataDir: config.VANTAGE_IP_DATA_DIR,
    cacheDir: ipCacheDir(config),
    onEvent: (event: unknown) => log.info({ event }, "IP data"),
    // A reload reads and compiles on a worker thread: the event loop keeps serving (issue #27 item 3).
    offThread: true,
  };
  let holder: IpDataHolder | undefined;
  let opening: Promise<IpDataHolder> | undefined;
  const open = (): Promise<IpDataHolder> => {
    opening ??= IpDataHolder.open(options).then(
      (opened) => {
        holder = opened;
        log.info({ version: opened.version, dir: config.VANTAGE_IP_DATA_DIR ?? "shipped" }, "IP data loaded");
        return opened;
      },
      (error: unknown) => {
        // Not kept: the next lookup tries again (the files may have been fixed meanwhile).
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };
  return {
    // The holder is the data source: a reload swaps what it answers from, so callers never hold stale data.
    current: async () => holder ?? (await open()),
    async reload() {
      if (!holder) {
        // Never loaded (the files were bad at start): a first open, as at start.
        const opened = await open().catch((error: Error) => {
          log.error(`IP data failed to load: ${error.message}`);
          throw error;
        });
        return opened.version;
      }
      const previous = holder.version;
      const started = performance.now();
      const next = await holder.reload().catch((error: Error) => {
        // The holder's message says it all (the reason, the version still answering): logged once, here.
        log.error(error.message);
        throw error;
      });
      const ms = Math.round(performance.now() - started);
      log.info({ version: next.version, previous, ms }, "IP data reloaded");
      return next.version;
    },
    version: () => holder?.version,
    loaded: () => holder,
  };
}
