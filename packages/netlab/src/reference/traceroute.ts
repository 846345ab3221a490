/** One hop as `traceroute -n` printed it: every probe's responder (null = `*`), RTT and annotation. */
export interface TracerouteHopReference {
  hop: number;
  probes: { ip: string | null; rttMs: number | null; annotation: string | null }[];
}

export interface TracerouteReference {
  target: string | null;
  maxHops: number | null;
  hops: TracerouteHopReference[];
}

const header = /^traceroute to (\S+) \(([^)]+)\), (\d+) hops max/;
const hopStart = /^\s*(\d+)\s+(.*)$/;

/**
 * Parses modern traceroute (Dmitry Butskoy's 2.x) with `-n`. A line may name several responders
 * (`1.2.3.4  0.5 ms 5.6.7.8  0.7 ms *`): an address applies to the times that follow it.
 */
export function parseTraceroute(output: string): TracerouteReference {
  const result: TracerouteReference = { target: null, maxHops: null, hops: [] };
  for (const line of output.split("\n")) {
    const h = header.exec(line);
    if (h) {
      result.target = h[2] ?? null;
      result.maxHops = Number(h[3]);
      continue;
    }
    const m = hopStart.exec(line);
    if (!m) continue;
    const tokens = (m[2] ?? "").trim().split(/\s+/);
    const probes: TracerouteHopReference["probes"] = [];
    let ip: string | null = null;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i] ?? "";
      if (t === "*") {
        probes.push({ ip: null, rttMs: null, annotation: null });
      } else if (/^[\d.]+$/.test(t) && tokens[i + 1] === "ms") {
        probes.push({ ip, rttMs: Number(t), annotation: null });
        i++;
      } else if (t.startsWith("!")) {
        const last = probes[probes.length - 1];
        if (last) last.annotation = t;
      } else if (/^[\da-fA-F.:]+$/.test(t)) {
        ip = t;
      }
    }
    result.hops.push({ hop: Number(m[1]), probes });
  }
  return result;
}

/** The responder of each hop (first answering probe), null for a hop where every probe was `*`. */
export function hopAddresses(ref: TracerouteReference): (string | null)[] {
  return ref.hops.map((h) => h.probes.find((p) => p.ip !== null)?.ip ?? null);
}
