import { beforeAll, describe, expect, it } from "vitest";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import type { LookupContext } from "../types.js";
import { IP_DATA_ATTRIBUTION } from "./attribution.js";
import { type IpData, IpDataHolder, openIpData } from "./database.js";
import { ipLookup } from "./lookup.js";
import { ipResultSchema } from "./schema.js";
import { installedCache, realVersion } from "./testing-data.js";

let data: IpData;
beforeAll(async () => {
  data = await openIpData({ cacheDir: installedCache });
}, 60_000);

const ctx = (extra: Partial<LookupContext> = {}): LookupContext => ({
  allowPrivate: false,
  ipData: data,
  ...extra,
});

/** Data that fails the test if it is asked anything: reserved addresses must never reach it. */
const untouchable = {
  version: "untouched",
  find: (ip: string): never => {
    throw new Error(`looked up ${ip}`);
  },
};

describe("ip lookup: public addresses, real data", () => {
  it("8.8.8.8 → US, AS15169, Google LLC, with the data's version", async () => {
    const result = await runLookup("ip", { ip: "8.8.8.8" }, ctx());
    expect(result).toEqual({
      ip: "8.8.8.8",
      country: "US",
      country_name: "United States",
      isp: "Google LLC",
      asn: "AS15169",
      reserved: false,
      range: null,
      data_version: realVersion,
    });
    expect(ipResultSchema.parse(result)).toEqual(result);
  });

  it.each([
    ["1.1.1.1", "1.1.1.1", "AS13335"],
    ["2001:4860:4860::8888", "2001:4860:4860::8888", "AS15169"],
    ["[2001:4860:4860:0:0:0:0:8888]", "2001:4860:4860::8888", "AS15169"],
    ["  2606:4700:4700::1111 ", "2606:4700:4700::1111", "AS13335"],
    // Azure's wire server: a blocked probe target, but a public Microsoft address.
    ["168.63.129.16", "168.63.129.16", "AS8075"],
  ])("%j → %s, %s", async (raw, ip, asn) => {
    const result = await runLookup("ip", { ip: raw }, ctx());
    expect(result).toMatchObject({ ip, asn, reserved: false, range: null });
    expect(result.country).toMatch(/^[A-Z]{2}$/);
    expect(result.country_name).toBeTruthy();
  });

  it.each(["::ffff:8.8.8.8", "::FFFF:0808:0808", "64:ff9b::8.8.8.8"])(
    "%s answers for 8.8.8.8, keeping its own canonical text",
    async (raw) => {
      const result = await runLookup("ip", { ip: raw }, ctx());
      const v4 = await runLookup("ip", { ip: "8.8.8.8" }, ctx());
      expect(result).toEqual({ ...v4, ip: raw.startsWith("64") ? "64:ff9b::808:808" : "::ffff:8.8.8.8" });
    },
  );

  it("reads through an IpDataHolder, answering from the data it holds", async () => {
    const holder = await IpDataHolder.open({ cacheDir: installedCache });
    const result = await runLookup("ip", { ip: "8.8.8.8" }, ctx({ ipData: holder }));
    expect(result).toMatchObject({ asn: "AS15169", data_version: holder.version });
  });
});

describe("ip lookup: the parsed path answers as the text path", () => {
  it("gives find()'s answer for random IPv4, IPv6 and IPv4-carrying IPv6 addresses", async () => {
    let x = 88172645;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    const hex = () => (next() & 0xffff).toString(16);
    const quad = () => `${next() & 255}.${next() & 255}.${next() & 255}.${next() & 255}`;
    const forms = [
      quad,
      () => `${(0x2000 + (next() % 0x1000)).toString(16)}:${hex()}:${hex()}::${hex()}`,
      () => `::ffff:${quad()}`,
      () => `64:ff9b::${quad()}`,
      () => `2002:${hex()}:${hex()}::1`,
      () => `2001:0:${hex()}:${hex()}::${hex()}:${hex()}`,
    ];
    // The data only through `find` (text): what the lookup answered before it read the parse.
    const textOnly = { version: data.version, find: (ip: string) => data.find(ip) };
    for (let i = 0; i < 6000; i++) {
      const ip = (forms[i % forms.length] as () => string)();
      const fast = await runLookup("ip", { ip }, ctx());
      expect(await runLookup("ip", { ip }, ctx({ ipData: textOnly }))).toEqual(fast);
    }
  });
});

describe("ip lookup: special addresses are answered without a lookup", () => {
  it.each([
    ["10.0.0.1", "private"],
    ["127.0.0.1", "loopback"],
    ["::1", "loopback"],
    ["fe80::1", "link_local"],
    ["100.64.0.1", "cgnat"],
    ["192.0.2.1", "documentation"],
    ["2001:db8::1", "documentation"],
    ["224.0.0.1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["::ffff:10.0.0.1", "private"],
    ["169.254.169.254", "link_local"],
    ["fd00:ec2::254", "private"],
    ["::8.8.8.8", "reserved"],
  ])("%s → reserved, range %s", async (ip, range) => {
    const result = await runLookup("ip", { ip }, ctx({ ipData: untouchable }));
    expect(result).toEqual({
      ip: expect.any(String),
      country: null,
      country_name: null,
      isp: null,
      asn: null,
      reserved: true,
      range,
      data_version: "untouched",
    });
  });
});

describe("ip lookup: refusals", () => {
  it.each([
    "example.com",
    "8.8.8.0/24",
    "2001:db8::/32",
    "fe80::1%eth0",
    "1.2.3",
    "256.1.1.1",
    "01.2.3.4",
    "127.1",
    "",
    "[8.8.8.8]",
    "1::2::3",
    "gggg::1",
    "8.8.8.8:53",
    "x".repeat(65),
  ])("%j → invalid_input on the ip field", async (ip) => {
    const error = await failure(runLookup("ip", { ip }, ctx({ ipData: untouchable })));
    expect(error.code).toBe("invalid_input");
    expect(error.issues).toEqual([{ path: "ip", message: expect.any(String) }]);
  });

  it("refuses a missing ip, a number and unknown fields", async () => {
    for (const input of [{}, { ip: 8 }, { ip: "8.8.8.8", extra: 1 }]) {
      const error = await failure(runLookup("ip", input, ctx({ ipData: untouchable })));
      expect(error.code).toBe("invalid_input");
    }
  });

  it("fails unavailable without IP data in the context", async () => {
    const error = await failure(ipLookup.run({ ip: "8.8.8.8" }, { allowPrivate: false }));
    expect(error.code).toBe("unavailable");
  });
});

describe("IP_DATA_ATTRIBUTION", () => {
  it("credits DB-IP with the link its licence asks for, RouteViews and the NRO", () => {
    expect(IP_DATA_ATTRIBUTION.html).toBe("<a href='https://db-ip.com'>IP Geolocation by DB-IP</a>");
    expect(IP_DATA_ATTRIBUTION.text).toContain("IP Geolocation by DB-IP (https://db-ip.com)");
    expect(IP_DATA_ATTRIBUTION.sources.map((s) => s.name)).toEqual([
      "DB-IP",
      "RouteViews",
      "NRO",
      "ip-location-db",
    ]);
  });
});
