import type { Lab } from "../lab.js";
import { type CurlReference, curlWriteOut, parseCurl } from "../reference/curl.js";
import { type DigReference, parseDig } from "../reference/dig.js";
import { type MtrHopReference, parseMtr } from "../reference/mtr.js";
import { type PingReference, parsePing } from "../reference/ping.js";
import { parseTraceroute, type TracerouteReference } from "../reference/traceroute.js";
import { tool } from "../shell.js";

/** The reference tools, run inside a lab node with the same parameters the probe gets. */
export async function referencePing(
  lab: Lab,
  node: string,
  host: string,
  o: { count: number; intervalMs: number; timeoutMs: number },
): Promise<PingReference> {
  const args = ["-n", "-c", String(o.count), "-i", String(o.intervalMs / 1000)];
  args.push("-W", String(Math.max(1, Math.round(o.timeoutMs / 1000))), host);
  const r = await lab.exec(node, tool("ping"), args);
  return parsePing(r.stdout);
}

export async function referenceTraceroute(
  lab: Lab,
  node: string,
  host: string,
  o: { icmp: boolean; maxHops: number; waitMs: number; queries: number },
): Promise<TracerouteReference> {
  const args = ["-n", "-m", String(o.maxHops), "-w", String(o.waitMs / 1000), "-q", String(o.queries)];
  if (o.icmp) args.push("-I");
  args.push(host);
  const r = await lab.exec(node, tool("traceroute"), args);
  if (r.code !== 0) throw new Error(`traceroute failed: ${r.stderr}`);
  return parseTraceroute(r.stdout);
}

/** Debian's `mtr` (mtr-tiny) in report mode, JSON out: `-u` for UDP, `-T -P port` for TCP. */
export async function referenceMtr(
  lab: Lab,
  node: string,
  host: string,
  o: { mode: "icmp" | "udp" | "tcp"; rounds: number; intervalMs: number; maxHops: number; port?: number },
): Promise<MtrHopReference[]> {
  const args = [
    "-n",
    "--json",
    "-c",
    String(o.rounds),
    "-i",
    String(o.intervalMs / 1000),
    "-m",
    String(o.maxHops),
  ];
  // The grace after the last round: long enough for the last answers, short enough to keep the test quick.
  args.push("-G", "1");
  if (o.mode === "udp") args.push("-u");
  // TCP probes are connect()s: left open, the kernel retransmits an unanswered SYN after its first
  // retransmission timeout (1 s) and a late answer to the retransmission counts, hiding loss; `-Z 1`
  // closes each probe's socket after one second, before that retransmission.
  if (o.mode === "tcp") args.push("-T", "-Z", "1");
  if (o.port !== undefined) args.push("-P", String(o.port));
  args.push(host);
  const r = await lab.exec(node, tool("mtr"), args);
  if (r.code !== 0) throw new Error(`mtr failed: ${r.stderr}`);
  return parseMtr(r.stdout);
}

export async function referenceDig(
  lab: Lab,
  node: string,
  server: string,
  name: string,
  type: string,
): Promise<DigReference> {
  const args = [`@${server}`, name, type, "+noall", "+answer", "+comments", "+stats", "+tries=1", "+time=2"];
  const r = await lab.exec(node, tool("dig"), args);
  return parseDig(r.stdout);
}

export async function referenceCurl(lab: Lab, node: string, url: string): Promise<CurlReference> {
  const args = ["-sk", "-o", "/dev/null", "--max-time", "10", "-w", curlWriteOut, url];
  const r = await lab.exec(node, tool("curl"), args);
  return parseCurl(r.stdout);
}
