import type { DnsResult } from "@vantage/probes";
import { describe, expect, it } from "vitest";
import { labAddresses as at } from "../topology.js";
import { useLab } from "./lab-fixture.js";
import { normaliseRecord } from "./normalise.js";
import { referenceDig } from "./reference-runs.js";

/** dns vs `dig` against the lab's authoritative server: same rcode, answer set and TTLs (±1 s). */
const fx = useLab();

const cases: [string, "A" | "AAAA" | "MX" | "TXT" | "NS" | "CNAME" | "SOA"][] = [
  ["www.vantage.test", "A"],
  ["www.vantage.test", "AAAA"],
  ["multi.vantage.test", "A"],
  ["vantage.test", "MX"],
  ["vantage.test", "TXT"],
  ["vantage.test", "NS"],
  ["alias.vantage.test", "CNAME"],
  ["alias.vantage.test", "A"],
  ["vantage.test", "SOA"],
  ["missing.vantage.test", "A"],
  ["www.vantage.test", "MX"],
];

type Row = { name: string; type: string; value: string; ttl: number };
const key = (r: Row): string => `${r.name} ${r.type} ${r.value}`;
const sorted = (rows: Row[]): Row[] => [...rows].sort((a, b) => key(a).localeCompare(key(b)));

async function compare(client: string, server: string, name: string, type: (typeof cases)[number][1]) {
  const runner = await fx.runner(client);
  const ref = await referenceDig(fx.lab, client, server.replace(/^\[|\]:53$/g, ""), name, type);
  const ours = await runner.run({ type: "dns", params: { domain: name, record_type: type, server } });
  const d = ours.detail as DnsResult | null;
  const refRows = sorted(ref.answers.map((a) => normaliseRecord(a)));
  const ourRows = sorted((d?.answers ?? []).map((a) => normaliseRecord(a)));
  expect(d?.rcode).toBe(ref.status);
  expect(ourRows.map(key)).toEqual(refRows.map(key));
  ourRows.forEach((r, i) => {
    expect(Math.abs(r.ttl - (refRows[i]?.ttl ?? Number.NaN)), key(r)).toBeLessThanOrEqual(1);
  });
  return { ref, ours, d };
}

describe("dns fidelity", () => {
  for (const [name, type] of cases) {
    it(`${type} ${name}: same rcode, answers and TTLs as dig`, async () => {
      await compare("c1", at.web4, name, type);
    });
  }

  it("over IPv6 to the server, from another client", async () => {
    await compare("c2", `[${at.web6}]:53`, "www.vantage.test", "AAAA");
  });

  it("a truncated UDP answer is retried over TCP, as dig does", async () => {
    const { ref, d } = await compare("c3", at.web4, "big.vantage.test", "TXT");
    expect(ref.retriedOverTcp).toBe(true);
    expect(ref.protocol).toBe("tcp");
    expect(d?.protocol).toBe("tcp");
    expect(d?.answers.length).toBe(1);
  });
});
