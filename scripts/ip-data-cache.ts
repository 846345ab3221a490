import { openIpData } from "@vantage/lookups";
import { loadConfig } from "../apps/controller/src/config.js";
import { ipCacheDir } from "../apps/controller/src/modules/lookups/index.js";

/**
 * Compiles the IP data's ASN table into the cache directory (`VANTAGE_IP_CACHE_DIR`, else the checkout's
 * `node_modules/.cache/vantage-ip-data/`) unless it is there already: run by `scripts/ensure-tools.sh` after
 * installing, so no controller start, test or benchmark pays the compile (about 3 s).
 */
const config = loadConfig();
const events: string[] = [];
const data = await openIpData({
  dataDir: config.VANTAGE_IP_DATA_DIR,
  cacheDir: ipCacheDir(config),
  onEvent: (e) => events.push(e.type),
});
if (events.includes("asn_compiled")) {
  process.stdout.write(`==> IP data ${data.version} compiled into ${data.cacheFile}\n`);
}
if (events.includes("asn_cache_write_failed")) {
  process.stderr.write(`warning: could not write the IP data cache ${data.cacheFile}\n`);
}
