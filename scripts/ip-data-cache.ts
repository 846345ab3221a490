import { openIpData, openReputationData } from "@vantage/lookups";
import { loadConfig } from "../apps/controller/src/config.js";
import { ipCacheDir } from "../apps/controller/src/modules/lookups/index.js";

/**
 * Compiles the IP data's ASN table and the reputation datasets into the cache directory
 * (`VANTAGE_IP_CACHE_DIR`, else the checkout's `node_modules/.cache/vantage-ip-data/`) unless they are there
 * already: run by `scripts/ensure-tools.sh` after installing, so no controller start, test or benchmark pays
 * the compile (about 3 s for the ASN table, 0.2–0.4 s for the reputation datasets).
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

const reputation: string[] = [];
await openReputationData({
  dir: config.VANTAGE_REPUTATION_DATA_DIR,
  cacheDir: ipCacheDir(config),
  onEvent: (e) =>
    reputation.push(e.type === "reputation_cache_write_failed" ? `${e.type}: ${e.reason}` : e.type),
});
if (reputation.includes("reputation_compiled")) {
  process.stdout.write(`==> reputation datasets compiled into ${ipCacheDir(config)}\n`);
}
for (const failed of reputation.filter((e) => e.startsWith("reputation_cache_write_failed"))) {
  process.stderr.write(`warning: could not write the reputation cache (${failed})\n`);
}
