import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitOf, startListening } from "../../testing/controller-process.js";

/*
 * The operator's path, on a real process: VANTAGE_IP_DATA_DIR holds a small dataset of our own; new files
 * are put in its place and SIGHUP swaps them in without a restart; bad files leave the old data answering.
 */
const require = createRequire(import.meta.url);
const realMmdb = join(
  dirname(require.resolve("@ip-location-db/geo-whois-asn-country-mmdb/package.json")),
  "geo-whois-asn-country.mmdb",
);

let dir: string;
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "vantage-ip-reload-"));
  dir = join(work, "ip");
  await writeData("test.1", "8.8.8.0,8.8.8.255,64501,First Dataset");
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function writeData(version: string, ipv4Row: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await copyFile(realMmdb, join(dir, "geo-whois-asn-country.mmdb"));
  await writeFile(join(dir, "asn-ipv4.csv"), `${ipv4Row}\n`);
  await writeFile(join(dir, "asn-ipv6.csv"), "2001:db8::,2001:db8::ffff,64510,Six\n");
  await writeFile(join(dir, "VERSION"), `${version}\n`);
}

describe("IP data reload on SIGHUP (a real controller process)", () => {
  it("swaps in new files without a restart; bad files keep the old data answering", async () => {
    const { child, url, log } = await startListening(
      {
        VANTAGE_DATA_DIR: join(work, "data"),
        VANTAGE_IP_DATA_DIR: dir,
        VANTAGE_IP_CACHE_DIR: join(work, "cache"),
        VANTAGE_ACCESS_LOG: "false",
      },
      150_000,
    );
    const exited = exitOf(child);
    try {
      const ask = async () => {
        const res = await fetch(`${url}/v1/info/ip?ip=8.8.8.8`);
        return (await res.json()) as { data: { isp: string; asn: string; data_version: string } };
      };
      expect((await ask()).data).toMatchObject({
        isp: "First Dataset",
        asn: "AS64501",
        data_version: "test.1",
      });

      await writeData("test.2", "8.8.8.0,8.8.8.255,64502,Second Dataset");
      child.kill("SIGHUP");
      await log.waitFor((l) => l.msg === "SIGHUP: reloading the IP and reputation data");
      // The reload runs on a worker thread: a request sent meanwhile is answered, from the old data, before
      // the new data is swapped in.
      const during = (await ask()).data;
      const reloadedBefore = log.lines.some((l) => l.msg === "IP data reloaded");
      await log.waitFor((l) => l.msg === "IP data reloaded");
      expect(reloadedBefore).toBe(false);
      expect(during).toMatchObject({ isp: "First Dataset", data_version: "test.1" });
      expect((await ask()).data).toMatchObject({
        isp: "Second Dataset",
        asn: "AS64502",
        data_version: "test.2",
      });

      await writeFile(join(dir, "VERSION"), "not a version!\n");
      child.kill("SIGHUP");
      const failed = await log.waitFor((l) => String(l.msg).startsWith("IP data reload failed"));
      expect(failed.level).toBe(50);
      expect((await ask()).data).toMatchObject({ isp: "Second Dataset", data_version: "test.2" });
      // One line for the failure, naming the reason once (no error object repeating it in a stack).
      // Both reloads of that SIGHUP have ended (the reputation data's, the second of its kind, succeeds).
      const reputationReloads = () => log.lines.filter((l) => l.msg === "reputation data reloaded").length;
      while (reputationReloads() < 2) await new Promise((r) => setTimeout(r, 50));
      const failures = log.lines.filter((l) => JSON.stringify(l).includes("reload failed"));
      expect(failures).toHaveLength(1);
      expect(JSON.stringify(failures[0]).split("must hold one version name")).toHaveLength(2);
      // The reputation datasets were compiled into the cache directory at start; the reloads, whose
      // files had not changed, read them from there on their worker thread.
      const cacheEvents = log.lines
        .filter((l) => l.msg === "reputation data")
        .map((l) => l.event as { type: string; cacheFile: string });
      expect(cacheEvents.map((e) => e.type)).toEqual([
        "reputation_compiled",
        "reputation_cache_loaded",
        "reputation_cache_loaded",
      ]);
      expect(cacheEvents.every((e) => e.cacheFile.startsWith(join(work, "cache")))).toBe(true);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  }, 240_000);
});
