import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, describe, expect, it } from "vitest";
import { IP_DATA_FILES, type IpDataEvent, IpDataHolder } from "../ip/database.js";
import { makeDataDir, removeTempDirs, tempDir, tinyIpv6 } from "../ip/testing-data.js";
import { ReputationDataHolder } from "../reputation/data-holder.js";
import { addr, writeDataDir } from "../reputation/testing/fixtures.js";

afterAll(removeTempDirs);

/**
 * 120,000 /24s from 11.0.0.0, one AS each, and 8.8.8.0/24 named `name`: a table that takes the event loop
 * seconds to compile (parsed as BigInts, sorted, checked), so a reload that compiled there would stall it.
 */
function bigIpv4(name: string): string[] {
  const rows = [`8.8.8.0,8.8.8.255,64501,${name}`];
  for (let i = 0; i < 120_000; i++) {
    const a = 11 + Math.floor(i / 65_536);
    const b = (i >> 8) & 255;
    const c = i & 255;
    rows.push(`${a}.${b}.${c}.0,${a}.${b}.${c}.255,${70_000 + i},Org ${i}`);
  }
  return rows;
}

describe("IpDataHolder with offThread: a reload is compiled on a worker thread", () => {
  it("keeps the event loop serving during the reload, then answers from the new data, all at once", async () => {
    const dir = await makeDataDir("big-1", bigIpv4("Old Data"), tinyIpv6);
    const events: IpDataEvent[] = [];
    const holder = await IpDataHolder.open({
      dataDir: dir,
      cacheDir: await tempDir("cache"),
      offThread: true,
      onEvent: (e) => events.push(e),
    });
    expect(holder.find("8.8.8.8").org).toBe("Old Data");
    // New data under a new version: no cache file matches, so the reload compiles the CSVs again.
    await makeDataDir("big-2", bigIpv4("New Data"), tinyIpv6, dir);
    events.length = 0;

    // "Requests" every 5 ms while the reload runs: each one a lookup, answered on this event loop.
    const answers: { org: string | null; during: boolean }[] = [];
    let reloading = true;
    const ticker = setInterval(() => answers.push({ org: holder.find("8.8.8.8").org, during: reloading }), 5);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    let next: Awaited<ReturnType<IpDataHolder["reload"]>>;
    try {
      next = await holder.reload();
      reloading = false;
      await new Promise((r) => setTimeout(r, 30));
    } finally {
      delay.disable();
      clearInterval(ticker);
    }

    expect(events.map((e) => e.type)).toEqual(["asn_compiled"]);
    expect(next.version).toBe("big-2");
    expect(holder.find("8.8.8.8").org).toBe("New Data");
    expect(next.counts.ipv4Ranges).toBe(120_001);
    // Lookups were answered while the compile ran, all from the old data; the new data answered from the
    // swap on, and never the old one again.
    const during = answers.filter((a) => a.during);
    expect(during.length).toBeGreaterThan(0);
    expect(new Set(during.map((a) => a.org))).toEqual(new Set(["Old Data"]));
    const firstNew = answers.findIndex((a) => a.org === "New Data");
    expect(firstNew).toBeGreaterThan(0);
    expect(answers.slice(firstNew).every((a) => a.org === "New Data")).toBe(true);
    // The compile takes seconds on this loop; on a worker thread the loop is never held near that long.
    // Generous: the bound is on a stall, not on speed, and allows for a machine twice as slow and busy.
    expect(delay.max / 1e6).toBeLessThan(1000);
  }, 120_000);

  it("keeps the old data when the new files are bad, with the reason once in the message", async () => {
    const dir = await makeDataDir("small-1", ["8.8.8.0,8.8.8.255,64501,Good"], tinyIpv6);
    const holder = await IpDataHolder.open({
      dataDir: dir,
      cacheDir: await tempDir("cache"),
      offThread: true,
    });
    await writeFile(join(dir, IP_DATA_FILES.asnIpv4), "8.8.8.0,8.8.8.255,64501,Good\n9.9.9.9,nope,1,Bad\n");
    await writeFile(join(dir, IP_DATA_FILES.version), "small-2\n");
    const failure = await holder.reload().then(
      () => new Error("the reload succeeded"),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(
      /^IP data reload failed, still answering from small-1: asn-ipv4\.csv line 2: expected two IPv4 addresses$/,
    );
    expect(failure.cause).toBeUndefined();
    expect(holder.version).toBe("small-1");
    expect(holder.find("8.8.8.8").org).toBe("Good");
  }, 60_000);
});

describe("ReputationDataHolder with offThread", () => {
  it("swaps in the directory's new files compiled on a worker thread; bad files keep the old data", async () => {
    const dir = await writeDataDir();
    const holder = await ReputationDataHolder.open({ dir, offThread: true });
    expect(holder.match(addr.clean).datacenterRange).toBe(false);

    await writeDataDir({ "hosting-vpn/output/datacenter/ipv4.txt": "45.10.0.0/16\n81.2.3.0/24\n" }, dir);
    await holder.reload();
    expect(holder.match(addr.clean).datacenterRange).toBe(true);
    expect(holder.match(addr.torV6)).toMatchObject({ torExit: true, datacenterRange: true });
    expect(holder.match(addr.cloud).cloudProvider).toBe("fixturecloud");
    expect(holder.hostingAsn(64600)?.name).toBe("FIXTURE-HOSTING - Fixture Hosting Ltd, NL");
    expect(holder.current.counts.datacenter_ranges).toBe(3);

    await writeDataDir({ "hosting-vpn/output/datacenter/ipv4.txt": "45.10.0.0/16\n<html>\n" }, dir);
    const failure = await holder.reload().then(
      () => new Error("the reload succeeded"),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(
      /^reputation data reload failed, still answering from the previous data: .*datacenter\/ipv4\.txt:2: /,
    );
    expect(failure.message.match(/ipv4\.txt:2/g)).toHaveLength(1);
    expect(holder.match(addr.clean).datacenterRange).toBe(true);
  }, 60_000);
});
