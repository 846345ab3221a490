import type { ProbeType } from "./probe-request.js";
import { type Column, formatMs } from "./table.js";

/** One node's entry of a task's `results[]` (the same in both forms). */
export interface ResultEntry {
  node_id: string;
  node_name?: string;
  success: boolean;
  latency_ms: number | null;
  error?: { code: string; message: string };
  [field: string]: unknown;
}

interface TypeColumn extends Column {
  value(r: ResultEntry): string;
}

const num = (v: unknown) => (typeof v === "number" ? String(v) : "-");

/** The probe type's own figures, between the latency and the free-text note. */
export const TYPE_COLUMNS: Record<ProbeType, TypeColumn[]> = {
  ping: [
    { header: "SENT", width: 4, right: true, value: (r) => num(r.packets_sent) },
    { header: "RECV", width: 4, right: true, value: (r) => num(r.packets_received) },
    {
      header: "LOSS",
      width: 5,
      right: true,
      value: (r) => (typeof r.packet_loss === "number" ? `${r.packet_loss}%` : "-"),
    },
    {
      header: "AVG",
      width: 9,
      right: true,
      value: (r) => formatMs((r.rtt as { avg?: unknown } | null)?.avg),
    },
  ],
  http: [
    { header: "STATUS", width: 6, right: true, value: (r) => num(r.status_code) },
    {
      header: "TOTAL",
      width: 10,
      right: true,
      value: (r) => formatMs((r.timings as { total?: unknown } | undefined)?.total),
    },
  ],
  dns: [
    { header: "RCODE", width: 8, value: (r) => (typeof r.rcode === "string" ? r.rcode : "-") },
    {
      header: "ANSWERS",
      width: 7,
      right: true,
      value: (r) => (Array.isArray(r.answers) ? String(r.answers.length) : "-"),
    },
  ],
  tcp: [{ header: "CONNECT", width: 10, right: true, value: (r) => formatMs(r.connect_ms) }],
  traceroute: [
    {
      header: "REACHED",
      width: 7,
      value: (r) => (typeof r.reached === "boolean" ? (r.reached ? "yes" : "no") : "-"),
    },
    {
      header: "HOPS",
      width: 4,
      right: true,
      value: (r) => (Array.isArray(r.hops) ? String(r.hops.length) : "-"),
    },
  ],
  mtr: [
    {
      header: "REACHED",
      width: 7,
      value: (r) => (typeof r.reached === "boolean" ? (r.reached ? "yes" : "no") : "-"),
    },
    {
      header: "HOPS",
      width: 4,
      right: true,
      value: (r) => (Array.isArray(r.hops) ? String(r.hops.length) : "-"),
    },
    {
      header: "LOSS",
      width: 6,
      right: true,
      value: (r) => {
        const last = Array.isArray(r.hops)
          ? (r.hops.at(-1) as { loss_pct?: unknown } | undefined)
          : undefined;
        return typeof last?.loss_pct === "number" ? `${last.loss_pct}%` : "-";
      },
    },
  ],
};

/** The free-text last column: a failure's message, a DNS answer's values, the address probed. */
export function note(type: ProbeType, r: ResultEntry): string {
  if (!r.success && r.error) return r.error.message;
  if (type === "dns" && Array.isArray(r.answers))
    return (r.answers as { value?: unknown }[]).map((a) => String(a.value)).join(", ");
  // mtr: the networks the path crosses.
  if (type === "mtr" && Array.isArray(r.as_path) && r.as_path.length)
    return `${String(r.resolved_ip ?? "")} via ${r.as_path.map((a) => `AS${a}`).join(" ")}`.trim();
  return typeof r.resolved_ip === "string" ? r.resolved_ip : "";
}
