/** One hop of `mtr --json` (report mode): its first address (`???` = none answered) and the columns. */
export interface MtrHopReference {
  hop: number;
  host: string | null;
  lossPct: number;
  sent: number;
  avg: number;
}

interface MtrJson {
  report?: { hubs?: { count: number; host: string; "Loss%": number; Snt: number; Avg: number }[] };
}

/** Parses `mtr -n --json -c N …` (mtr 0.95). */
export function parseMtr(output: string): MtrHopReference[] {
  const json = JSON.parse(output) as MtrJson;
  return (json.report?.hubs ?? []).map((h) => ({
    hop: h.count,
    host: h.host === "???" ? null : h.host,
    lossPct: h["Loss%"],
    sent: h.Snt,
    avg: h.Avg,
  }));
}
