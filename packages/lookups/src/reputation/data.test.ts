import { rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  datasetFingerprints,
  openReputationData,
  REPUTATION_VERSIONS_FILE,
  shippedReputationDir,
} from "./data.js";
import { ReputationDataHolder } from "./data-holder.js";
import { reputationDatasetNames } from "./datasets.js";
import { addr, fixtureFiles, removeTempDirs, writeDataDir } from "./testing/fixtures.js";

afterAll(removeTempDirs);

describe("openReputationData over a fixture directory", () => {
  it("loads every dataset and answers each kind of look-up", async () => {
    const data = await openReputationData({ dir: await writeDataDir() });
    expect(data.loaded).toEqual(reputationDatasetNames);
    expect(data.missing).toEqual([]);
    expect(data.match(addr.torOnHosting)).toEqual({
      torExit: true,
      datacenterRange: true,
      vpnRange: false,
      cloudProvider: null,
    });
    expect(data.match(addr.torV6)).toMatchObject({ torExit: true, datacenterRange: true });
    expect(data.match("45.10.0.9").torExit).toBe(false); // exact match, not the /16 around it
    expect(data.match(addr.vpnOnHosting)).toMatchObject({ vpnRange: true, datacenterRange: true });
    expect(data.match("2a0b:f00:9::1")).toMatchObject({ vpnRange: true });
    expect(data.match(addr.cloud).cloudProvider).toBe("fixturecloud");
    expect(data.match("2600:1f12::1").cloudProvider).toBe("fixturecloud");
    expect(data.match(addr.clean)).toEqual({
      torExit: false,
      datacenterRange: false,
      vpnRange: false,
      cloudProvider: null,
    });
    // IPv4-mapped answers as its IPv4 address.
    expect(data.match(`::ffff:${addr.torOnHosting}`).torExit).toBe(true);
    expect(data.hostingAsn(64600)).toEqual({ asn: 64600, name: "FIXTURE-HOSTING - Fixture Hosting Ltd, NL" });
    expect(data.hostingAsn(64601)).toEqual({ asn: 64601, name: null });
    expect(data.hostingAsn(64700)).toBeNull();
    expect(data.vpnAsn(64650)).toEqual({ asn: 64650, name: "Fixture VPN" });
    expect(data.counts).toMatchObject({ tor_exits: 3, hosting_asns: 2, datacenter_ranges: 3 });
    expect(() => data.match("example.com")).toThrow(TypeError);
  });

  it("reports a dataset whose files are absent as missing, and loads the rest", async () => {
    const dir = await writeDataDir({
      ...fixtureFiles,
      "tor/tor-exit-nodes.lst": null,
      "hosting-vpn/output/vpn/ipv4.txt": null,
      "hosting-vpn/output/vpn/ipv6.txt": null,
      // One file of two is enough (Oracle has no IPv6 list).
      "hosting-vpn/output/datacenter/ipv6.txt": null,
    });
    const data = await openReputationData({ dir });
    expect(data.missing).toEqual(["tor_exits", "vpn_ranges"]);
    expect(data.loaded).not.toContain("tor_exits");
    expect(data.versions).not.toHaveProperty("tor_exits");
    expect(data.match(addr.torOnHosting)).toMatchObject({ torExit: false, datacenterRange: true });
  });

  it("rejects a directory holding none of the datasets", async () => {
    const dir = await writeDataDir({ "README.md": "nothing here" });
    await expect(openReputationData({ dir })).rejects.toThrow(/no reputation data in .*: none of the files/);
  });

  it("rejects an empty or malformed file, naming it", async () => {
    const empty = await writeDataDir({ ...fixtureFiles, "hosting-vpn/input/vpn/ASN.txt": "" });
    await expect(openReputationData({ dir: empty })).rejects.toThrow(
      /input\/vpn\/ASN\.txt: holds no AS numbers/,
    );
    const html = await writeDataDir({ ...fixtureFiles, "tor/tor-exit-nodes.lst": "<!doctype html>\n" });
    await expect(openReputationData({ dir: html })).rejects.toThrow(
      /tor-exit-nodes\.lst:1: expected one IP address/,
    );
  });

  it("versions a dataset by VERSIONS while its fingerprint matches, else by the file's modification time", async () => {
    const dir = await writeDataDir();
    const prints = await datasetFingerprints(dir);
    expect(Object.keys(prints).sort()).toEqual(
      [...reputationDatasetNames.filter((n) => n !== "cloud_ranges"), "cloud_ranges/fixturecloud"].sort(),
    );
    await writeFile(
      join(dir, REPUTATION_VERSIONS_FILE),
      `# comment\ntor_exits 2026-01-02 ${prints.tor_exits}\nhosting_asns 2026-01-03 0000000000000000\n`,
    );
    const when = new Date("2026-03-04T05:06:07.890Z");
    await utimes(join(dir, "hosting-vpn/input/datacenter/ASN.txt"), when, when);
    const data = await openReputationData({ dir });
    expect(data.versions.tor_exits).toBe("2026-01-02");
    expect(data.versions.hosting_asns).toBe("2026-03-04T05:06:07Z"); // stale fingerprint: the file's time
    expect(data.versions["cloud_ranges/fixturecloud"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("rejects a malformed VERSIONS line", async () => {
    const dir = await writeDataDir({ ...fixtureFiles, VERSIONS: "tor_exits 2026-01-02\n" });
    await expect(openReputationData({ dir })).rejects.toThrow(
      /VERSIONS:1: expected "<dataset> <date> <16 hex digits>"/,
    );
  });
});

describe("ReputationDataHolder", () => {
  it("reload swaps in the directory's new files", async () => {
    const dir = await writeDataDir();
    const holder = await ReputationDataHolder.open({ dir });
    expect(holder.match(addr.clean).torExit).toBe(false);
    await writeFile(join(dir, "tor/tor-exit-nodes.lst"), `${addr.clean}\n`);
    const next = await holder.reload();
    expect(holder.current).toBe(next);
    expect(holder.match(addr.clean).torExit).toBe(true);
    expect(holder.match(addr.torOnHosting).torExit).toBe(false);
  });

  it("reload keeps the old data answering when a file is bad or empty, or everything is gone", async () => {
    const dir = await writeDataDir();
    const holder = await ReputationDataHolder.open({ dir });
    const before = holder.current;
    await writeFile(join(dir, "hosting-vpn/output/datacenter/ipv4.txt"), "10.0.0.0/8\nnot a network\n");
    await expect(holder.reload()).rejects.toThrow(
      /reputation data reload failed, still answering from the previous data: .*datacenter\/ipv4\.txt:2:/,
    );
    await writeFile(join(dir, "hosting-vpn/output/datacenter/ipv4.txt"), "");
    await expect(holder.reload()).rejects.toThrow(/holds no addresses/);
    await rm(dir, { recursive: true });
    await expect(holder.reload()).rejects.toThrow(/no reputation data/);
    expect(holder.current).toBe(before);
    expect(holder.match(addr.torOnHosting).torExit).toBe(true);
    expect(holder.hostingAsn(64600)).not.toBeNull();
  });

  it("replaceDataset swaps one dataset at once, versioned as given, the others untouched", async () => {
    const holder = await ReputationDataHolder.open({ dir: await writeDataDir() });
    const before = holder.current;
    const next = holder.replaceDataset("tor_exits", `${addr.clean}\n2a0b:f00::8\n`, "2026-09-01T10:00:00Z");
    expect(holder.current).toBe(next);
    expect(before.match(addr.torOnHosting).torExit).toBe(true); // the old object is unchanged
    expect(holder.match(addr.torOnHosting).torExit).toBe(false);
    expect(holder.match(addr.clean).torExit).toBe(true);
    expect(holder.versions.tor_exits).toBe("2026-09-01T10:00:00Z");
    expect(holder.versions.hosting_asns).toBe(before.versions.hosting_asns);
    expect(holder.match(addr.cloud).cloudProvider).toBe("fixturecloud");

    holder.replaceDataset("hosting_asns", "AS64700 # Now hosting\n", "v2");
    expect(holder.hostingAsn(64700)).toEqual({ asn: 64700, name: "Now hosting" });
    expect(holder.hostingAsn(64600)).toBeNull();
    // A range dataset's IPv4 and IPv6 lists, concatenated.
    holder.replaceDataset("vpn_ranges", "81.2.3.0/24\n2a0b:f00:7::/48\n", "v3");
    expect(holder.match(addr.clean).vpnRange).toBe(true);
    expect(holder.match("2a0b:f00:7::1").vpnRange).toBe(true);
    expect(holder.match(addr.vpnOnHosting).vpnRange).toBe(false);
  });

  it("replaces cloud ranges one provider at a time", async () => {
    const holder = await ReputationDataHolder.open({ dir: await writeDataDir() });
    holder.replaceDataset("cloud_ranges", "81.2.0.0/16\n", "2026-09-02", { provider: "othercloud" });
    expect(holder.match(addr.clean).cloudProvider).toBe("othercloud");
    expect(holder.match(addr.cloud).cloudProvider).toBe("fixturecloud");
    expect(holder.versions["cloud_ranges/othercloud"]).toBe("2026-09-02");
    holder.replaceDataset("cloud_ranges", "62.5.0.0/16\n", "2026-09-03", { provider: "fixturecloud" });
    expect(holder.match(addr.cloud).cloudProvider).toBeNull();
    expect(holder.match(addr.datacenter).cloudProvider).toBe("fixturecloud");
  });

  it("replaceDataset refuses empty or unparseable text, bad names, versions and providers, keeping the data", async () => {
    const holder = await ReputationDataHolder.open({ dir: await writeDataDir() });
    const before = holder.current;
    expect(() => holder.replaceDataset("tor_exits", "", "v1")).toThrow(
      "tor_exits (replacement): holds no addresses",
    );
    expect(() => holder.replaceDataset("tor_exits", "<html><body>502 Bad Gateway", "v1")).toThrow(
      "tor_exits (replacement):1:",
    );
    expect(() => holder.replaceDataset("hosting_asns", "# nothing\n", "v1")).toThrow("holds no AS numbers");
    expect(() => holder.replaceDataset("bogus" as never, "1.2.3.4", "v1")).toThrow(
      /unknown reputation dataset "bogus"/,
    );
    expect(() => holder.replaceDataset("tor_exits", "1.2.3.4", "")).toThrow(/bad version/);
    expect(() => holder.replaceDataset("tor_exits", "1.2.3.4", "has space")).toThrow(/bad version/);
    expect(() => holder.replaceDataset("cloud_ranges", "1.2.3.0/24", "v1")).toThrow(/per provider/);
    expect(() => holder.replaceDataset("cloud_ranges", "1.2.3.0/24", "v1", { provider: "../x" })).toThrow(
      /per provider/,
    );
    expect(() => holder.replaceDataset("tor_exits", "1.2.3.4", "v1", { provider: "x" })).toThrow(
      /only cloud_ranges/,
    );
    expect(holder.current).toBe(before);
  });

  it("keeps replaced datasets across a reload of the directory, and fills a missing one", async () => {
    const dir = await writeDataDir({ ...fixtureFiles, "tor/tor-exit-nodes.lst": null });
    const holder = await ReputationDataHolder.open({ dir });
    expect(holder.missing).toEqual(["tor_exits"]);
    holder.replaceDataset("tor_exits", `${addr.clean}\n`, "fetched-1");
    expect(holder.missing).toEqual([]);
    expect(holder.loaded).toContain("tor_exits");
    await writeFile(join(dir, "hosting-vpn/input/vpn/ASN.txt"), "AS64700\n");
    await holder.reload();
    expect(holder.vpnAsn(64700)).not.toBeNull();
    expect(holder.match(addr.clean).torExit).toBe(true);
    expect(holder.versions.tor_exits).toBe("fetched-1");
    expect(holder.missing).toEqual([]);
  });
});

describe("the shipped data (data/reputation)", () => {
  it("loads every dataset, dated by VERSIONS (update it with the files)", async () => {
    const data = await openReputationData();
    expect(data.dir).toBe(shippedReputationDir);
    expect(data.missing).toEqual([]);
    const prints = await datasetFingerprints(shippedReputationDir);
    const stale = Object.entries(prints)
      .filter(([key]) => !/^\d{4}-\d\d-\d\d$/.test(data.versions[key] ?? ""))
      .map(([key, print]) => `${key} <date> ${print}`);
    expect(stale, "VERSIONS lines to update").toEqual([]);
    expect(data.versions.tor_exits).toBe("2024-02-27");
    expect(data.versions.hosting_asns).toBe("2026-08-22");
  });

  it("knows a few well-known entries", async () => {
    const data = await openReputationData();
    expect(data.hostingAsn(14061)?.name).toMatch(/Digital ?Ocean/i);
    expect(data.hostingAsn(16509)).not.toBeNull(); // Amazon
    expect(data.hostingAsn(24940)).not.toBeNull(); // Hetzner
    expect(data.vpnAsn(209854)?.name).toMatch(/Surfshark/);
    // The first and an IPv6 address of the shipped Tor list.
    expect(data.match("101.99.92.179").torExit).toBe(true);
    expect(data.match("101.99.92.180").torExit).toBe(false);
    expect(data.match("2001:470:1:908::9001").torExit).toBe(true); // written in full in the list
    expect(data.counts.tor_exits).toBe(1746);
    // Cloudflare's 104.16.0.0/13, AWS's us-east-1 EC2 space.
    expect(data.match("104.16.0.1").cloudProvider).toBe("cloudflare");
    expect(data.match("2606:4700::1").cloudProvider).toBe("cloudflare");
    expect(data.match("8.8.8.8").cloudProvider).toBe("google");
    expect(Object.keys(data.versions).filter((k) => k.startsWith("cloud_ranges/"))).toHaveLength(8);
  });
});
