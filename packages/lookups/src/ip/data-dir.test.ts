import { copyFile, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { IP_DATA_FILES, type IpDataEvent, IpDataHolder, openIpData } from "./database.js";
import { makeDataDir, packageFiles, removeTempDirs, tempDir, tinyIpv4, tinyIpv6 } from "./testing-data.js";

afterAll(removeTempDirs);

/** Opens with a fresh event log, so a test sees whether the CSVs were compiled or the cache read. */
async function openLogged(dataDir: string, cacheDir: string) {
  const events: IpDataEvent[] = [];
  const data = await openIpData({ dataDir, cacheDir, onEvent: (e) => events.push(e) });
  return { data, types: events.map((e) => e.type), events };
}

describe("a data directory replaces the npm files", () => {
  it("answers from a tiny hand-made dataset (its ASNs, the copied MMDB's countries) under its VERSION", async () => {
    const dir = await makeDataDir("tiny-1", tinyIpv4, tinyIpv6);
    const { data } = await openLogged(dir, await tempDir("cache"));
    expect(data.version).toBe("tiny-1");
    expect(data.counts).toEqual({ ipv4Ranges: 3, ipv6Ranges: 1, organisations: 3 });
    expect(data.find("8.8.8.8")).toEqual({ country: "US", asn: 64501, org: 'Tiny, "Eight" Inc.' });
    expect(data.find("1.1.1.200")).toMatchObject({ asn: 64500, org: "Tiny One" });
    expect(data.find("2001:4860:4860::8888")).toEqual({ country: "US", asn: 64503, org: "Tiny Six" });
    // Outside the tiny ranges: no AS, while the MMDB still knows the country.
    expect(data.find("3.3.3.3")).toEqual({ country: "US", asn: null, org: null });
  });

  it("resolves overlapping and nested ranges: the later-starting range answers for what it covers", async () => {
    const dir = await makeDataDir(
      "nested",
      [
        "10.0.0.0,10.0.255.255,1,Outer",
        "10.0.1.0,10.0.1.255,2,Inner",
        "10.0.1.128,10.0.1.131,3,Innermost",
        "10.0.200.0,10.1.0.255,4,Overlapping",
      ],
      ["2001:db8::,2001:db8::ffff,5,Six"],
    );
    const { data } = await openLogged(dir, await tempDir("cache"));
    const asn = (ip: string) => data.find(ip).asn;
    expect([asn("10.0.0.5"), asn("10.0.1.5"), asn("10.0.1.130"), asn("10.0.1.200"), asn("10.0.2.0")]).toEqual(
      [1, 2, 3, 2, 1],
    );
    expect([asn("10.0.199.255"), asn("10.0.200.0"), asn("10.1.0.255"), asn("10.1.1.0")]).toEqual([
      1,
      4,
      4,
      null,
    ]);
  });

  it.each([
    ["VERSION missing", async (dir: string) => rm(join(dir, "VERSION")), /VERSION/],
    ["VERSION blank", async (dir: string) => writeFile(join(dir, "VERSION"), " \n"), /VERSION must hold/],
    ["an ASN CSV missing", async (dir: string) => rm(join(dir, "asn-ipv6.csv")), /asn-ipv6\.csv/],
    [
      "a bad CSV row",
      async (dir: string) => writeFile(join(dir, "asn-ipv4.csv"), "1.1.1.0,nope,1,X\n"),
      /asn-ipv4\.csv line 1/,
    ],
    ["an empty CSV", async (dir: string) => writeFile(join(dir, "asn-ipv4.csv"), ""), /holds no ranges/],
    [
      "a truncated CSV",
      async (dir: string) => writeFile(join(dir, "asn-ipv4.csv"), "1.1.1.0,1.1.1.2"),
      /line 1/,
    ],
    [
      "the IPv4-only MMDB",
      async (dir: string) =>
        copyFile(
          join(packageFiles.mmdbDir, "geo-whois-asn-country-ipv4.mmdb"),
          join(dir, IP_DATA_FILES.mmdb),
        ),
      /IPv4 only/,
    ],
    [
      "a file that is not an MMDB",
      async (dir: string) => writeFile(join(dir, IP_DATA_FILES.mmdb), "x"),
      /not an MMDB/,
    ],
  ])("refuses a directory with %s, naming the problem", async (_, damage, message) => {
    const dir = await makeDataDir("bad", tinyIpv4, tinyIpv6);
    await damage(dir);
    await expect(openIpData({ dataDir: dir, cacheDir: await tempDir("cache") })).rejects.toThrow(message);
  });
});

describe("the compiled ASN cache", () => {
  it("is written on the first open and read on the second, without the CSVs being parsed again", async () => {
    const dir = await makeDataDir("cache-1", tinyIpv4, tinyIpv6);
    const cacheDir = await tempDir("cache");
    const first = await openLogged(dir, cacheDir);
    expect(first.types).toEqual(["asn_compiled"]);
    expect(await readdir(cacheDir)).toEqual(["asn-cache-1-f1.bin"]);
    expect(first.data.cacheFile).toBe(join(cacheDir, "asn-cache-1-f1.bin"));

    // Same sizes and times, contents that would not parse: only a cache read can still answer.
    for (const name of [IP_DATA_FILES.asnIpv4, IP_DATA_FILES.asnIpv6]) {
      const file = join(dir, name);
      const before = await stat(file);
      await writeFile(file, "#".repeat(before.size));
      await utimes(file, before.atimeMs / 1000, before.mtimeMs / 1000);
    }
    const second = await openLogged(dir, cacheDir);
    expect(second.types).toEqual(["asn_cache_loaded"]);
    expect(second.data.find("8.8.8.8")).toEqual(first.data.find("8.8.8.8"));
    expect(second.data.find("2001:4860::1")).toEqual({ country: "US", asn: 64503, org: "Tiny Six" });
  });

  it("is rebuilt when the CSVs change under the same version, or when the file is damaged", async () => {
    const dir = await makeDataDir("cache-2", tinyIpv4, tinyIpv6);
    const cacheDir = await tempDir("cache");
    await openLogged(dir, cacheDir);
    await writeFile(join(dir, IP_DATA_FILES.asnIpv4), "8.8.8.0,8.8.8.255,64999,Changed\n");
    const changed = await openLogged(dir, cacheDir);
    expect(changed.types).toEqual(["asn_cache_unusable", "asn_compiled"]);
    expect(changed.data.find("8.8.8.8").asn).toBe(64999);

    const file = join(cacheDir, "asn-cache-2-f1.bin");
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, bytes.length - 8));
    const damaged = await openLogged(dir, cacheDir);
    expect(damaged.types).toEqual(["asn_cache_unusable", "asn_compiled"]);
    expect(damaged.events[0]).toMatchObject({ reason: expect.stringMatching(/bytes, expected/) });
    expect((await openLogged(dir, cacheDir)).types).toEqual(["asn_cache_loaded"]);
  });

  it("still opens when the cache cannot be written, and says so", async () => {
    const dir = await makeDataDir("cache-3", tinyIpv4, tinyIpv6);
    const notADir = join(await tempDir("cache"), "file");
    await writeFile(notADir, "");
    const { data, types } = await openLogged(dir, notADir);
    expect(types).toEqual(["asn_cache_unusable", "asn_compiled", "asn_cache_write_failed"]);
    expect(data.find("8.8.8.8").asn).toBe(64501);
  });
});

describe("IpDataHolder: atomic reload", () => {
  it("swaps to the new data whole, lookups during the reload answering from the old or the new", async () => {
    const cacheDir = await tempDir("cache");
    const a = await makeDataDir("A", tinyIpv4, tinyIpv6);
    const b = await makeDataDir("B", ["8.8.8.0,8.8.8.255,65001,Bee"], tinyIpv6);
    const holder = await IpDataHolder.open({ dataDir: a, cacheDir });
    expect([holder.version, holder.find("8.8.8.8").asn]).toEqual(["A", 64501]);

    const seen = new Set<string>();
    let done = false;
    const reading = (async () => {
      while (!done) {
        const current = holder.current;
        seen.add(`${current.version}:${current.find("8.8.8.8").asn}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const next = await holder.reload({ dataDir: b });
    done = true;
    await reading;
    expect(next.version).toBe("B");
    expect([holder.version, holder.find("8.8.8.8").asn]).toEqual(["B", 65001]);
    expect(seen.has("A:64501")).toBe(true);
    expect([...seen].every((s) => s === "A:64501" || s === "B:65001")).toBe(true);
  });

  it("keeps answering from the old data when the new data is broken, and rejects saying why", async () => {
    const cacheDir = await tempDir("cache");
    const good = await makeDataDir("good", tinyIpv4, tinyIpv6);
    const broken = await makeDataDir("broken", tinyIpv4, tinyIpv6);
    await writeFile(join(broken, IP_DATA_FILES.asnIpv6), "2001:db8::,zzz,1,Bad\n");
    const holder = await IpDataHolder.open({ dataDir: good, cacheDir });
    const before = holder.current;
    await expect(holder.reload({ dataDir: broken })).rejects.toThrow(
      /IP data reload failed, still answering from good: asn-ipv6\.csv line 1/,
    );
    expect(holder.current).toBe(before);
    expect(holder.find("8.8.8.8").asn).toBe(64501);
    // A later reload starts from the options that last worked.
    expect((await holder.reload()).version).toBe("good");
  });

  it("runs concurrent reloads one after the other, the last asked winning", async () => {
    const cacheDir = await tempDir("cache");
    const one = await makeDataDir("one", tinyIpv4, tinyIpv6);
    const two = await makeDataDir("two", tinyIpv4, tinyIpv6);
    const holder = await IpDataHolder.open({ dataDir: one, cacheDir });
    const results = await Promise.allSettled([
      holder.reload({ dataDir: two }),
      holder.reload({ dataDir: join(two, "missing") }),
      holder.reload({ dataDir: one }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(holder.version).toBe("one");
  });
});
