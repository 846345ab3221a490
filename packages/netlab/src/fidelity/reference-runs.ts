import type { Lab } from "../lab.js";
import { type CurlReference, curlWriteOut, parseCurl } from "../reference/curl.js";
import { type DigReference, parseDig } from "../reference/dig.js";
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
