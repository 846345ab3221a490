import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { DnsblOutcome } from "./dnsbl.js";
import type { RdnsOutcome } from "./rdns.js";
import {
  DNSBL_OTHER_MAX,
  type ReputationFacts,
  RISK_BANDS,
  riskLevel,
  scoreReputation,
  REPUTATION_WEIGHTS as W,
} from "./score.js";

const facts = (extra: Partial<ReputationFacts> = {}): ReputationFacts => ({
  ip: "81.2.3.4",
  asn: 64700,
  asOrg: "Fixture Broadband plc",
  torExit: false,
  hostingAsn: null,
  vpnAsn: null,
  datacenterRange: false,
  vpnRange: false,
  cloudProvider: null,
  dnsbl: [],
  rdns: null,
  versions: { tor_exits: "2024-02-27" },
  ...extra,
});

const listed = (
  zone: string,
  ...listings: [string, "drop" | "xbl" | "sbl" | "pbl" | "proxy" | "tor" | "other"][]
): DnsblOutcome => ({
  zone,
  profile: "generic",
  status: "listed",
  listings: listings.map(([code, category]) => ({ code, category, meaning: `meaning of ${code}` })),
});

const ptr = (
  name: string,
  extra: Partial<Extract<RdnsOutcome, { status: "answered" }>> = {},
): RdnsOutcome => ({
  status: "answered",
  name,
  confirmed: true,
  forwardProblem: null,
  hints: { hosting: null, residential: null, vpnProxy: null },
  ...extra,
});

const total = (r: ReturnType<typeof scoreReputation>) => r.evidence.reduce((s, e) => s + e.weight, 0);

describe("scoreReputation: the model's worked examples", () => {
  it("a clean address: low 0, no evidence", () => {
    expect(scoreReputation(facts())).toEqual({
      score: 0,
      score_capped: false,
      risk_level: "low",
      types: [],
      evidence: [],
    });
  });

  it("a bare cloud VM: medium 25, hosting, one item naming the ASN and the cloud range", () => {
    const r = scoreReputation(
      facts({
        asn: 14061,
        asOrg: "DigitalOcean, LLC",
        hostingAsn: { name: "DIGITALOCEAN-ASN" },
        cloudProvider: "digitalocean",
        datacenterRange: true,
      }),
    );
    expect(r).toMatchObject({ score: 25, risk_level: "medium", types: ["hosting"] });
    expect(r.evidence).toEqual([
      {
        signal: "hosting",
        weight: W.hosting,
        description:
          "AS14061 (DigitalOcean, LLC) is a hosting ASN, it is in digitalocean's published cloud ranges and it is in a datacenter range",
      },
    ]);
  });

  it("the list's comment names the AS when the IP data has no organisation", () => {
    const r = scoreReputation(facts({ asn: 64600, asOrg: null, hostingAsn: { name: "FIXTURE-HOSTING" } }));
    expect(r.evidence[0]?.description).toBe("AS64600 (FIXTURE-HOSTING) is a hosting ASN");
  });

  it("VPN on hosting: high 65, vpn and hosting", () => {
    const r = scoreReputation(
      facts({ hostingAsn: { name: null }, vpnAsn: { name: "M247" }, vpnRange: true }),
    );
    expect(r).toMatchObject({ score: 65, risk_level: "high", types: ["vpn", "hosting"] });
    expect(r.evidence.map((e) => [e.signal, e.weight])).toEqual([
      ["vpn", 40],
      ["hosting", 25],
    ]);
    expect(r.evidence[0]?.description).toBe(
      "AS64700 (Fixture Broadband plc) is a VPN provider's ASN and it is in a known VPN range",
    );
  });

  it("a Tor exit: high 60; critical 85 on a hosting ASN", () => {
    const tor = scoreReputation(facts({ torExit: true }));
    expect(tor).toMatchObject({ score: 60, risk_level: "high", types: ["tor"] });
    expect(tor.evidence[0]?.description).toBe("81.2.3.4 is in the Tor exit list (data 2024-02-27)");
    const onHosting = scoreReputation(facts({ torExit: true, hostingAsn: { name: null } }));
    expect(onHosting).toMatchObject({ score: 85, risk_level: "critical", types: ["hosting", "tor"] });
  });

  it("an XBL-infected home PC: high 50; DROP: critical", () => {
    expect(scoreReputation(facts({ dnsbl: [listed("zen.test", ["127.0.0.4", "xbl"])] }))).toMatchObject({
      score: 50,
      risk_level: "high",
      types: [],
    });
    expect(
      scoreReputation(facts({ dnsbl: [listed("zen.test", ["127.0.0.9", "drop"], ["127.0.0.2", "sbl"])] })),
    ).toMatchObject({
      score: 100,
      score_capped: true,
      risk_level: "critical",
    });
  });

  it("an open proxy (DroneBL): 55, proxy", () => {
    const r = scoreReputation(facts({ dnsbl: [listed("dnsbl.dronebl.test", ["127.0.0.8", "proxy"])] }));
    expect(r).toMatchObject({ score: 55, risk_level: "high", types: ["proxy"] });
    expect(r.evidence[0]?.description).toBe("dnsbl.dronebl.test lists it: meaning of 127.0.0.8 (127.0.0.8)");
  });
});

describe("scoreReputation: the rules", () => {
  it("Tor's DNSEL is the tor family: one tor_exit item naming the list, the DNSEL or both", () => {
    const dnsel = [listed("dnsel.torproject.org", ["127.0.0.2", "tor"])];
    const byDnsel = scoreReputation(facts({ dnsbl: dnsel }));
    expect(byDnsel).toMatchObject({ score: W.tor_exit, risk_level: "high", types: ["tor"] });
    expect(byDnsel.evidence).toEqual([
      {
        signal: "tor_exit",
        weight: W.tor_exit,
        description: "dnsel.torproject.org lists it: meaning of 127.0.0.2 (127.0.0.2)",
      },
    ]);
    const both = scoreReputation(
      facts({ torExit: true, dnsbl: [...dnsel, listed("exits.test", ["127.0.0.2", "tor"])] }),
    );
    expect(both).toMatchObject({ score: W.tor_exit, types: ["tor"] });
    expect(both.evidence).toEqual([
      {
        signal: "tor_exit",
        weight: W.tor_exit,
        description:
          "81.2.3.4 is in the Tor exit list (data 2024-02-27); dnsel.torproject.org lists it: meaning of 127.0.0.2 (127.0.0.2); exits.test lists it: meaning of 127.0.0.2 (127.0.0.2)",
      },
    ]);
  });

  it("a DNSEL listing is never an other DNSBL hit, and keeps a PBL listing from saying residential", () => {
    const r = scoreReputation(
      facts({
        dnsbl: [
          listed("dnsel.torproject.org", ["127.0.0.2", "tor"]),
          listed("zen.test", ["127.0.0.10", "pbl"]),
          listed("other.test", ["127.0.0.2", "other"]),
        ],
      }),
    );
    expect(r.evidence.map((e) => [e.signal, e.weight])).toEqual([
      ["tor_exit", W.tor_exit],
      ["dnsbl_other", W.dnsbl_other],
    ]);
    expect(r.evidence[1]?.description).toBe("other.test lists it: meaning of 127.0.0.2");
    expect(r.types).toEqual(["tor"]);
  });

  it("other DNSBL hits: 10 per zone, at most 20, one item", () => {
    const zones = ["a.test", "b.test", "c.test"].map((z) => listed(z, ["127.0.0.2", "other"]));
    expect(scoreReputation(facts({ dnsbl: zones.slice(0, 1) })).score).toBe(W.dnsbl_other);
    const r = scoreReputation(facts({ dnsbl: zones }));
    expect(r.score).toBe(DNSBL_OTHER_MAX);
    expect(r.evidence).toHaveLength(1);
  });

  it("a family counts once, however many zones say it", () => {
    const r = scoreReputation(
      facts({
        dnsbl: [
          listed("a.test", ["127.0.0.4", "xbl"], ["127.0.0.5", "xbl"]),
          listed("b.test", ["127.0.0.6", "xbl"]),
        ],
      }),
    );
    expect(r.score).toBe(W.spamhaus_xbl);
    expect(r.evidence).toHaveLength(1);
  });

  it("PBL alone is residential, weight 0, informational", () => {
    const r = scoreReputation(facts({ dnsbl: [listed("zen.test", ["127.0.0.10", "pbl"])] }));
    expect(r).toMatchObject({ score: 0, risk_level: "low", types: ["residential"] });
    expect(r.evidence).toEqual([
      {
        signal: "residential",
        weight: 0,
        description: "zen.test lists it: meaning of 127.0.0.10 (127.0.0.10)",
      },
    ]);
  });

  it("a dynamic PTR is residential; not with hosting, VPN or Tor evidence", () => {
    const dynamic = ptr("dsl-1.isp.test", { hints: { hosting: null, residential: '"dsl"', vpnProxy: null } });
    expect(scoreReputation(facts({ rdns: dynamic })).types).toEqual(["residential"]);
    expect(scoreReputation(facts({ rdns: dynamic, hostingAsn: { name: null } })).types).toEqual(["hosting"]);
    expect(scoreReputation(facts({ rdns: dynamic, torExit: true })).types).toEqual(["tor"]);
    const pbl = [listed("zen.test", ["127.0.0.10", "pbl"])];
    expect(scoreReputation(facts({ dnsbl: pbl, vpnRange: true })).types).toEqual(["vpn"]);
  });

  it("rDNS: a hosting name counts only without a hosting ASN or range", () => {
    const vps = ptr("vps1.test", { hints: { hosting: '"vps"', residential: null, vpnProxy: null } });
    expect(scoreReputation(facts({ rdns: vps }))).toMatchObject({
      score: W.rdns_hosting,
      types: ["hosting"],
    });
    expect(scoreReputation(facts({ rdns: vps, hostingAsn: { name: null } })).score).toBe(W.hosting);
  });

  it("rDNS: a VPN or proxy word (10, tagged), no PTR or an unconfirmed one (3), an unknown confirmation (0)", () => {
    const vpn = ptr("vpn1.test", {
      hints: { hosting: null, residential: null, vpnProxy: { keyword: "vpn", tag: "vpn" } },
    });
    expect(scoreReputation(facts({ rdns: vpn }))).toMatchObject({ score: W.rdns_vpn_proxy, types: ["vpn"] });
    expect(scoreReputation(facts({ rdns: { status: "no_ptr" } })).evidence).toEqual([
      { signal: "rdns_unconfirmed", weight: 3, description: "81.2.3.4 has no PTR record" },
    ]);
    expect(scoreReputation(facts({ rdns: ptr("x.test", { confirmed: false }) })).evidence).toEqual([
      {
        signal: "rdns_unconfirmed",
        weight: 3,
        description: "its PTR name x.test does not resolve back to 81.2.3.4",
      },
    ]);
    expect(
      scoreReputation(facts({ rdns: ptr("x.test", { confirmed: null, forwardProblem: "timeout" }) })).score,
    ).toBe(0);
    expect(scoreReputation(facts({ rdns: { status: "unavailable", reason: "timeout" } })).score).toBe(0);
  });

  it("the evidence adds up to the score (or past 100, said by score_capped), heaviest first", () => {
    const everything = facts({
      torExit: true,
      hostingAsn: { name: null },
      vpnAsn: { name: null },
      dnsbl: [
        listed("zen.test", ["127.0.0.9", "drop"], ["127.0.0.4", "xbl"], ["127.0.0.2", "sbl"]),
        listed("drone.test", ["127.0.0.9", "proxy"], ["127.0.0.3", "other"]),
      ],
      rdns: ptr("vpn.test", {
        confirmed: false,
        hints: { hosting: '"vps"', residential: null, vpnProxy: { keyword: "vpn", tag: "vpn" } },
      }),
    });
    const r = scoreReputation(everything);
    expect(total(r)).toBe(75 + 60 + 55 + 50 + 40 + 40 + 25 + 10 + 10 + 3);
    expect(r).toMatchObject({
      score: 100,
      score_capped: true,
      risk_level: "critical",
      types: ["proxy", "vpn", "hosting", "tor"],
    });
    const weights = r.evidence.map((e) => e.weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    expect(new Set(r.evidence.map((e) => e.signal)).size).toBe(r.evidence.length);
    for (const f of [facts(), facts({ torExit: true }), facts({ vpnRange: true, cloudProvider: "x" })]) {
      const s = scoreReputation(f);
      expect(s.score_capped).toBe(false);
      expect(total(s)).toBe(s.score);
    }
  });

  it("bands: low 0–24, medium 25–49, high 50–74, critical 75–100", () => {
    expect([0, 24, 25, 49, 50, 74, 75, 100].map(riskLevel)).toEqual([
      "low",
      "low",
      "medium",
      "medium",
      "high",
      "high",
      "critical",
      "critical",
    ]);
  });
});

describe("docs/reputation.md", () => {
  const doc = readFileSync(new URL("../../../../docs/reputation.md", import.meta.url), "utf8");

  it("lists every weight of REPUTATION_WEIGHTS, as it is", () => {
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d+) \|/gm)].map(([, signal, weight]) => [
      signal,
      Number(weight),
    ]);
    expect(Object.fromEntries(rows)).toEqual(W);
    expect(doc).toContain(`at most ${DNSBL_OTHER_MAX}`);
  });

  it("gives the bands of RISK_BANDS", () => {
    for (const band of RISK_BANDS) expect(doc).toContain(`| \`${band.level}\` | ${band.min}–${band.max} |`);
  });
});
