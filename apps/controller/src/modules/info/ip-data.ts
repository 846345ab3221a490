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
   * Opens the files again (`VANTAGE_IP_DATA_DIR`, else the shipped ones) and, once they have loaded
   * whole, swaps them in: lookups in flight finish on the old data, later ones read the new. When the new
   * files fail to load, the old data keeps answering and the promise rejects. Resolves to the version.
   */
  reload(): Promise<string>;
  /** The loaded data's version; undefined before the first use. */
  version(): string | undefined;
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
      if (!holder) return (await open()).version;
      const previous = holder.version;
      const next = await holder.reload();
      log.info({ version: next.version, previous }, "IP data reloaded");
      return next.version;
    },
    version: () => holder?.version,
  };
}
