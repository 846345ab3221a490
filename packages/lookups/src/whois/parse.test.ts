import { describe, expect, it } from "vitest";
import { toUtcDate } from "./parse-date.js";
import { parseWhoisText } from "./parse-text.js";
import { fixture } from "./testing/servers.js";

// The texts are fixtures written in the registries' formats (fixtures/README.md), not recordings.
const domain = { ip: false, zonelessOffsetMinutes: 0 };

describe("whois text parsers", () => {
  it("Verisign registry (.com): registrar, registry expiry, name servers, the registrar's server", () => {
    const text = fixture("com-registry.txt", { REGISTRAR_WHOIS: "whois.example-registrar.test" });
    expect(parseWhoisText(text, domain)).toEqual({
      registrar: "Example Registrar, Inc.",
      expires_at: "2026-08-13",
      name_servers: ["ns1.example-dns.net", "ns2.example-dns.net"],
      referral: "whois.example-registrar.test",
      recognised: true,
    });
  });

  it("a registrar's thick record: `Registrar Registration Expiration Date` with a +0000 offset", () => {
    const text = fixture("com-registrar.txt", { REGISTRAR_WHOIS: "whois.example-registrar.test" });
    expect(parseWhoisText(text, domain)).toMatchObject({
      registrar: "Example Registrar, Inc.",
      expires_at: "2027-02-01",
      name_servers: ["ns1.example-dns.net", "ns2.example-dns.net"],
    });
  });

  it("CNNIC (.cn): Sponsoring Registrar; Expiration Time read as Beijing time (UTC+8) and given in UTC", () => {
    const parsed = parseWhoisText(fixture("cn.txt"), { ip: false, zonelessOffsetMinutes: 480 });
    // 2027-03-18 06:48:36 in Beijing is 2027-03-17 22:48:36 UTC.
    expect(parsed).toEqual({
      registrar: "阿里云计算有限公司（万网）",
      expires_at: "2027-03-17",
      name_servers: ["ns1.example-dns.cn", "ns2.example-dns.cn"],
      referral: null,
      recognised: true,
    });
  });

  it("Nominet (.uk): indented blocks, the [Tag = …] handle dropped, addresses after name servers dropped", () => {
    expect(parseWhoisText(fixture("uk.txt"), domain)).toEqual({
      registrar: "Example Registrar Ltd t/a Example Hosting",
      expires_at: "2027-03-17",
      name_servers: ["ns1.example-dns.co.uk", "ns2.example-dns.net"],
      referral: null,
      recognised: true,
    });
  });

  it("DENIC (.de): Nserver lines; no registrar and no expiry in the answer → null", () => {
    expect(parseWhoisText(fixture("de.txt"), domain)).toEqual({
      registrar: null,
      expires_at: null,
      name_servers: ["ns1.example-dns.de", "ns2.example-dns.de"],
      referral: null,
      recognised: true,
    });
  });

  it.each([
    ["jp.txt", "general-use name, English (/e): [Expires on]"],
    ["jp-org.txt", "organisation name (co.jp): lettered lines, expiry inside [State] Connected (…)"],
    ["jp-ja.txt", "Japanese form: [有効期限]"],
  ])("JPRS %s (%s)", (file) => {
    expect(parseWhoisText(fixture(file), domain)).toEqual({
      registrar: null,
      expires_at: "2027-03-31",
      name_servers: ["ns1.example-dns.jp", "ns2.example-dns.jp"],
      referral: null,
      recognised: true,
    });
  });

  it.each(["com-not-found.txt", "cn-not-found.txt", "uk-not-found.txt", "de-free.txt", "jp-not-found.txt"])(
    "%s → not_found",
    (file) => {
      expect(parseWhoisText(fixture(file), domain)).toBe("not_found");
    },
  );

  it("an answer with no field we know (a rate-limit notice) is not a record", () => {
    const parsed = parseWhoisText("Query rate exceeded. Try again later.\r\n", domain);
    expect(parsed).toMatchObject({ recognised: false, registrar: null, name_servers: [] });
  });

  it("ARIN: the organisation as registrar, the network block, the referral to the RIR", () => {
    const text = fixture("arin.txt", { RIPE_WHOIS: "whois.ripe.net" });
    expect(parseWhoisText(text, { ip: true, zonelessOffsetMinutes: 0 })).toEqual({
      registrar: "RIPE Network Coordination Centre",
      expires_at: null,
      name_servers: [],
      referral: "whois.ripe.net",
      network: {
        name: "RIPE-CBLK2",
        start: "193.0.0.0",
        end: "193.255.255.255",
        cidr: "193.0.0.0/8",
        country: "NL",
      },
      recognised: true,
    });
  });

  it("RIPE: inetnum range, netname, country, the organisation's org-name", () => {
    expect(parseWhoisText(fixture("ripe.txt"), { ip: true, zonelessOffsetMinutes: 0 })).toMatchObject({
      registrar: "Reseaux IP Europeens Network Coordination Centre (RIPE NCC)",
      network: { name: "RIPE-NCC", start: "193.0.0.0", end: "193.0.7.255", cidr: null, country: "NL" },
    });
  });
});

describe("registry dates → UTC YYYY-MM-DD", () => {
  it.each([
    ["2026-08-13T04:00:00Z", 0, "2026-08-13"],
    ["2026-08-13T04:00:00.0Z", 0, "2026-08-13"],
    ["2027-02-01T10:00:00+0000Z", 0, "2027-02-01"],
    ["2027-05-02T00:30:00.000+02:00", 0, "2027-05-01"],
    ["2027-03-17 12:48:36", 480, "2027-03-17"],
    ["2027-03-17 06:48:36", 480, "2027-03-16"],
    ["2027-03-17 06:48:36", 0, "2027-03-17"],
    ["2026/04/01 01:05:03 (JST)", 0, "2026-03-31"],
    ["2027/03/31", 480, "2027-03-31"],
    ["17-Mar-2027", 0, "2027-03-17"],
    ["17.03.2027", 0, "2027-03-17"],
    ["2027.03.17", 0, "2027-03-17"],
    ["2027-02-30", 0, null],
    ["before 2027", 0, null],
    ["2027-03-17 12:48:36 CST", 0, null],
  ])("%s (zoneless offset %i min) → %s", (text, offset, expected) => {
    expect(toUtcDate(text, offset)).toBe(expected);
  });
});
