import { appendFile, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openReputationData, shippedReputationDir } from "./data.js";
import { type ReputationCacheEvent, reputationCacheFile } from "./data-cache.js";
import { ReputationDataHolder } from "./data-holder.js";
import type { ReputationData } from "./datasets.js";
import { addr, removeTempDirs, tempDir, writeDataDir } from "./testing/fixtures.js";

afterAll(removeTempDirs);

/** Opens `dir` through the cache in `cacheDir`, answering the data and the events' types. */
async function open(dir: string, cacheDir: string): Promise<{ data: ReputationData; events: string[] }> {
  const events: ReputationCacheEvent[] = [];
  const data = await openReputationData({ dir, cacheDir, onEvent: (e) => events.push(e) });
  return { data, events: events.map((e) => e.type) };
}

const probes = [
  addr.torOnHosting,
  addr.torV6,
  addr.clean,
  addr.vpnOnHosting,
  addr.cloud,
  addr.datacenter,
  "2a0b:f00:9::1",
  "2600:1f12::1",
  `::ffff:${addr.torOnHosting}`,
  "45.10.0.9",
];

/** Everything a lookup can read from the data, for comparing two loads. */
function answers(data: ReputationData) {
  return {
    versions: data.versions,
    counts: data.counts,
    loaded: data.loaded,
    missing: data.missing,
    dir: data.dir,
    matches: probes.map((ip) => data.match(ip)),
    asns: [64600, 64601, 64650, 64700].map((asn) => [data.hostingAsn(asn), data.vpnAsn(asn)]),
  };
}

describe("the compiled reputation cache", () => {
  it("answers from the cache as from the files, and parses only when there is none", async () => {
    const dir = await writeDataDir();
    const cacheDir = await tempDir("cache");
    const parsed = await openReputationData({ dir });
    const first = await open(dir, cacheDir);
    expect(first.events).toEqual(["reputation_compiled"]);
    const second = await open(dir, cacheDir);
    expect(second.events).toEqual(["reputation_cache_loaded"]);
    expect(answers(first.data)).toEqual(answers(parsed));
    expect(answers(second.data)).toEqual(answers(parsed));
    expect(second.data.match(addr.torOnHosting).torExit).toBe(true);
    expect(await readdir(cacheDir)).toEqual([reputationCacheFile(cacheDir, dir).slice(cacheDir.length + 1)]);
  });

  it("answers the shipped datasets from the cache as from their text", async () => {
    const cacheDir = await tempDir("cache");
    const parsed = await openReputationData();
    await open(shippedReputationDir, cacheDir);
    const { data, events } = await open(shippedReputationDir, cacheDir);
    expect(events).toEqual(["reputation_cache_loaded"]);
    expect(answers(data)).toEqual(answers(parsed));
    expect(data.datasets.datacenter_ranges?.v4Start).toEqual(parsed.datasets.datacenter_ranges?.v4Start);
    expect(data.datasets.cloud_ranges?.get("amazon")?.v6End).toEqual(
      parsed.datasets.cloud_ranges?.get("amazon")?.v6End,
    );
  });

  it("parses again when a file is edited, added, removed or only touched", async () => {
    const dir = await writeDataDir();
    const cacheDir = await tempDir("cache");
    await open(dir, cacheDir);
    const changed = ["reputation_cache_unusable", "reputation_compiled"];

    await appendFile(join(dir, "tor/tor-exit-nodes.lst"), "81.2.3.4\n");
    let opened = await open(dir, cacheDir);
    expect(opened.events).toEqual(changed);
    expect(opened.data.match(addr.clean).torExit).toBe(true);

    // Same size, new time: the text may differ, so it is read.
    const asnFile = join(dir, "hosting-vpn/input/vpn/ASN.txt");
    await writeFile(asnFile, "AS64651 # Fixture VPN\n");
    const later = new Date((await stat(asnFile)).mtimeMs + 5_000);
    await utimes(asnFile, later, later);
    opened = await open(dir, cacheDir);
    expect(opened.events).toEqual(changed);
    expect(opened.data.vpnAsn(64651)).toEqual({ asn: 64651, name: "Fixture VPN" });
    expect(opened.data.vpnAsn(64650)).toBeNull();

    await writeDataDir({ "cloud-ranges/othercloud/ipv4_merged.txt": "81.2.0.0/16\n" }, dir);
    opened = await open(dir, cacheDir);
    expect(opened.events).toEqual(changed);
    expect(opened.data.match(addr.clean).cloudProvider).toBe("othercloud");

    await rm(join(dir, "tor/tor-exit-nodes.lst"));
    opened = await open(dir, cacheDir);
    expect(opened.events).toEqual(changed);
    expect(opened.data.missing).toEqual(["tor_exits"]);
    expect((await open(dir, cacheDir)).events).toEqual(["reputation_cache_loaded"]);
  });

  it("parses over a damaged cache file, says why, and writes a good one", async () => {
    const dir = await writeDataDir();
    const cacheDir = await tempDir("cache");
    const parsed = answers(await openReputationData({ dir }));
    await open(dir, cacheDir);
    const file = reputationCacheFile(cacheDir, dir);
    const good = await readFile(file);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1] = (good.at(-1) ?? 0) ^ 0xff;

    const damaged: [Buffer, RegExp][] = [
      [flipped, /digest/],
      [good.subarray(0, good.length - 8), /truncated/],
      [Buffer.from("<html>not found</html>"), /not a cache file/],
    ];
    for (const [bytes, reason] of damaged) {
      await writeFile(file, bytes);
      const events: ReputationCacheEvent[] = [];
      const data = await openReputationData({ dir, cacheDir, onEvent: (e) => events.push(e) });
      expect(events.map((e) => e.type)).toEqual(["reputation_cache_unusable", "reputation_compiled"]);
      expect(events[0]).toMatchObject({ reason: expect.stringMatching(reason) });
      expect(answers(data)).toEqual(parsed);
      expect((await open(dir, cacheDir)).events).toEqual(["reputation_cache_loaded"]);
    }
  });

  it("loads from the files when the cache directory cannot be written", async () => {
    const dir = await writeDataDir();
    const notADir = join(await tempDir("cache"), "a-file");
    await writeFile(notADir, "");
    const events: ReputationCacheEvent[] = [];
    const data = await openReputationData({ dir, cacheDir: notADir, onEvent: (e) => events.push(e) });
    expect(events.map((e) => e.type)).toEqual([
      "reputation_cache_unusable",
      "reputation_compiled",
      "reputation_cache_write_failed",
    ]);
    expect(data.match(addr.vpnOnHosting).vpnRange).toBe(true);
  });

  it("keeps a malformed file an error, cache or not", async () => {
    const dir = await writeDataDir();
    const cacheDir = await tempDir("cache");
    await open(dir, cacheDir);
    await writeFile(join(dir, "hosting-vpn/output/vpn/ipv4.txt"), "<html>502</html>\n");
    await expect(openReputationData({ dir, cacheDir })).rejects.toThrow(/vpn\/ipv4\.txt:1/);
  });

  it("is used by a reload on the worker thread, whose events reach the caller", async () => {
    const dir = await writeDataDir();
    const cacheDir = await tempDir("cache");
    const events: ReputationCacheEvent[] = [];
    const holder = await ReputationDataHolder.open({
      dir,
      cacheDir,
      offThread: true,
      onEvent: (e) => events.push(e),
    });
    await holder.reload();
    expect(events.map((e) => e.type)).toEqual(["reputation_compiled", "reputation_cache_loaded"]);
    expect(holder.match(addr.cloud).cloudProvider).toBe("fixturecloud");
    expect(holder.hostingAsn(64600)?.name).toBe("FIXTURE-HOSTING - Fixture Hosting Ltd, NL");
  });

  it("removes other directories' cache files left for more than a day", async () => {
    const cacheDir = await tempDir("cache");
    const [kept, gone, current] = [await writeDataDir(), await writeDataDir(), await writeDataDir()];
    await open(kept, cacheDir);
    await open(gone, cacheDir);
    const old = new Date(Date.now() - 2 * 24 * 3600_000);
    await utimes(reputationCacheFile(cacheDir, gone), old, old);
    await writeFile(join(cacheDir, "asn-some-version-f1.bin"), "");
    await utimes(join(cacheDir, "asn-some-version-f1.bin"), old, old);
    await open(current, cacheDir);
    const names = (await readdir(cacheDir)).sort();
    const name = (dir: string) => reputationCacheFile(cacheDir, dir).slice(cacheDir.length + 1);
    expect(names).toEqual([name(kept), name(current), "asn-some-version-f1.bin"].sort());
  });
});
