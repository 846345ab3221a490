import {
  labAddresses as at,
  hopAddresses,
  normaliseRecord,
  referenceCurl,
  referenceDig,
  referencePing,
  referenceTraceroute,
  startLab,
  startProbeRunner,
} from "../packages/netlab/src/index.js";
import type { DnsResult, HttpResult, PingResult, TracerouteResult } from "../packages/probes/src/index.js";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:fidelity`: one lab run, each probe next to its reference tool on the same path, one table.
 * Needs root (network namespaces); see docs/testing.md.
 */
type Row = [string, string, string, string, string];
const rows: Row[] = [];
const ms = (v: number | null | undefined): string => (v == null ? "–" : `${v.toFixed(3)} ms`);
const diffMs = (a: number | null | undefined, b: number | null | undefined): string =>
  a == null || b == null ? "–" : `${a - b >= 0 ? "+" : ""}${(a - b).toFixed(3)} ms`;
const median = (xs: number[]): number =>
  [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;
const same = (a: string, b: string): string => (a === b ? "same" : "DIFFERS");

const lab = await startLab({ lossPercent: 10 });
try {
  const runners = new Map<string, Awaited<ReturnType<typeof startProbeRunner>>>();
  for (const c of lab.clients) runners.set(c, await startProbeRunner(lab, c));
  const run = runners.get.bind(runners);

  for (const [client, host] of [
    ["c2", at.web4],
    ["c3", at.web6],
  ] as const) {
    const ref = await referencePing(lab, client, host, { count: 20, intervalMs: 10, timeoutMs: 2000 });
    const o = await run(client)!.run({
      type: "ping",
      params: { host, count: 20, interval_ms: 10, timeout_ms: 2000 },
    });
    const d = o.detail as PingResult | null;
    rows.push([
      `ping ${client}→${host} avg RTT`,
      "ping",
      ms(d?.rtt?.avg),
      ms(ref.rtt?.avg),
      diffMs(d?.rtt?.avg, ref.rtt?.avg),
    ]);
    rows.push([
      `ping ${client}→${host} received`,
      "ping",
      `${d?.packets_received}/${d?.packets_sent}`,
      `${ref.received}/${ref.transmitted}`,
      same(`${d?.packets_received}/${d?.packets_sent}`, `${ref.received}/${ref.transmitted}`),
    ]);
  }
  {
    const ref = await referencePing(lab, "c1", at.lossy4, { count: 200, intervalMs: 10, timeoutMs: 1000 });
    let sent = 0;
    let received = 0;
    for (let i = 0; i < 4; i++) {
      const o = await run("c1")!.run({
        type: "ping",
        params: { host: at.lossy4, count: 50, interval_ms: 10, timeout_ms: 1000 },
      });
      const d = o.detail as PingResult | null;
      sent += d?.packets_sent ?? 0;
      received += d?.packets_received ?? 0;
    }
    const ours = ((sent - received) / sent) * 100;
    const theirs = ((ref.transmitted - ref.received) / ref.transmitted) * 100;
    rows.push([
      `ping loss, ${lab.lossPercent}% lossy path, 200 pkts`,
      "ping",
      `${ours.toFixed(1)} %`,
      `${theirs.toFixed(1)} %`,
      `${(ours - theirs).toFixed(1)} points`,
    ]);
  }
  for (const [client, host] of [
    ["c1", at.web4],
    ["c2", at.web4],
    ["c3", at.web4],
    ["c2", at.web6],
    ["c1", at.noIcmp4],
  ] as const) {
    const maxHops = host === at.noIcmp4 ? 5 : 8;
    const ref = hopAddresses(
      await referenceTraceroute(lab, client, host, { icmp: false, maxHops, waitMs: 500, queries: 3 }),
    );
    const o = await run(client)!.run({
      type: "traceroute",
      params: { host, max_hops: maxHops, timeout_ms: 500, queries_per_hop: 3 },
    });
    const ours = ((o.detail as TracerouteResult | null)?.hops ?? []).map((h) => h.ip);
    const show = (h: (string | null)[]): string => h.map((x) => x ?? "*").join(" ");
    rows.push([
      `traceroute ${client}→${host}`,
      "traceroute -n",
      show(ours),
      show(ref),
      same(show(ours), show(ref)),
    ]);
  }
  for (const [name, type] of [
    ["www.vantage.test", "A"],
    ["www.vantage.test", "AAAA"],
    ["vantage.test", "MX"],
    ["vantage.test", "TXT"],
    ["vantage.test", "NS"],
    ["alias.vantage.test", "CNAME"],
    ["vantage.test", "SOA"],
    ["missing.vantage.test", "A"],
    ["big.vantage.test", "TXT"],
  ] as const) {
    const ref = await referenceDig(lab, "c1", at.web4, name, type);
    const o = await run("c1")!.run({
      type: "dns",
      params: { domain: name, record_type: type, server: at.web4, timeout_ms: 2000 },
    });
    const d = o.detail as DnsResult | null;
    const fmt = (
      rcode: string | null | undefined,
      rs: { name: string; type: string; value: string; ttl: number }[],
      proto: string | null | undefined,
    ): string =>
      `${rcode} ${rs.length} rr ttl ${[...new Set(rs.map((r) => normaliseRecord(r).ttl))].join(",") || "–"} ${proto ?? ""}`.trim();
    const ours = fmt(d?.rcode, d?.answers ?? [], d?.protocol);
    const theirs = fmt(ref.status, ref.answers, ref.protocol);
    const setOf = (rs: { name: string; type: string; value: string; ttl: number }[]): string =>
      rs
        .map((r) => {
          const n = normaliseRecord(r);
          return `${n.name} ${n.type} ${n.value}`;
        })
        .sort()
        .join("|");
    rows.push([
      `dns ${type} ${name}`,
      "dig",
      ours,
      theirs,
      setOf(d?.answers ?? []) === setOf(ref.answers) && ours === theirs ? "same" : "DIFFERS",
    ]);
  }
  {
    // Medians of five after one warm-up: single sub-millisecond samples are mostly scheduling noise.
    const tcpSpec = {
      type: "tcp" as const,
      params: { host: at.web4, port: at.tcpOpenPort, timeout_ms: 2000 },
    };
    await run("c1")!.run(tcpSpec);
    const theirs: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < 5; i++) {
      const ref = await referenceCurl(lab, "c1", `telnet://${at.web4}:${at.tcpOpenPort}`);
      theirs.push(ref.connect - ref.namelookup);
      ours.push((await run("c1")!.run(tcpSpec)).detail?.connect_ms ?? Number.NaN);
    }
    const d = { connect_ms: median(ours) };
    const ref = { connect: median(theirs), namelookup: 0 };
    rows.push([
      `tcp connect ${at.web4}:${at.tcpOpenPort} (median of 5)`,
      "curl time_connect",
      ms(d?.connect_ms),
      ms(ref.connect - ref.namelookup),
      diffMs(d?.connect_ms, ref.connect - ref.namelookup),
    ]);
    for (const [port, host, want] of [
      [at.tcpClosedPort, at.web4, "connection_refused"],
      [80, at.blackhole4, "timeout"],
    ] as const) {
      const r = await run("c1")!.run({ type: "tcp", params: { host, port, timeout_ms: 500 } });
      rows.push([
        `tcp ${host}:${port}`,
        "expected",
        r.error?.code ?? "success",
        want,
        same(r.error?.code ?? "success", want),
      ]);
    }
  }
  for (const url of [
    `http://www.${at.dnsZone}/`,
    `https://www.${at.dnsZone}/`,
    `http://[${at.web6}]/status/404?delay=5`,
    `https://${at.web4}/delay/50`,
  ]) {
    const spec = { type: "http" as const, params: { url, method: "GET" as const, timeout_ms: 5000 } };
    await run("c2")!.run(spec);
    const refs: Awaited<ReturnType<typeof referenceCurl>>[] = [];
    const outs: (HttpResult | null)[] = [];
    for (let i = 0; i < 5; i++) {
      refs.push(await referenceCurl(lab, "c2", url));
      outs.push((await run("c2")!.run(spec)).detail as HttpResult | null);
    }
    const ref = { httpCode: refs[0]!.httpCode, total: median(refs.map((r) => r.total)) };
    const first = outs[0];
    const d = first
      ? {
          ...first,
          timings: { ...first.timings, total: median(outs.map((o) => o?.timings.total ?? Number.NaN)) },
        }
      : null;
    rows.push([
      `http ${url} status`,
      "curl",
      String(d?.status_code),
      String(ref.httpCode),
      same(String(d?.status_code), String(ref.httpCode)),
    ]);
    rows.push([
      `http ${url} total (median of 5)`,
      "curl time_total",
      ms(d?.timings.total),
      ms(ref.total),
      d ? `×${(d.timings.total / ref.total).toFixed(2)}` : "–",
    ]);
  }
  for (const r of runners.values()) r.stop();
} finally {
  await lab.destroy();
}

printTable(["probe", "reference", "ours", "theirs", "difference"], rows);
