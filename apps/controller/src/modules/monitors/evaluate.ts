import type { MonitorType } from "../../db/tables/monitors.js";
import type { NodeResult } from "../probes/index.js";

/** Why a node's run failed although the probe itself succeeded (the monitor's own checks). */
export type CheckFailure =
  | "unexpected_status"
  | "keyword_missing"
  | "keyword_present"
  | "packet_loss"
  | "unexpected_answer"
  | "not_reached";

/** `2xx`-style classes or exact codes; default 200–399. */
function statusExpected(code: unknown, expected: unknown): boolean {
  if (typeof code !== "number") return false;
  if (!Array.isArray(expected) || expected.length === 0) return code >= 200 && code < 400;
  return expected.some((e) =>
    typeof e === "number"
      ? e === code
      : typeof e === "string" && /^[1-5]xx$/.test(e) && Math.floor(code / 100) === Number(e[0]),
  );
}

/** The HTTP status an http probe was answered with; null without an answer. */
export function httpStatus(r: NodeResult): number | null {
  const code = r.detail?.status_code;
  return typeof code === "number" && Number.isInteger(code) && code >= 100 && code <= 999 ? code : null;
}

/**
 * A node's outcome for a monitor: the probe must succeed, then the type's checks from the monitor's config
 * must hold (http: expected status and keyword; ping: packet loss at most `max_loss_percent`; dns: an
 * answer equal to `expected_value`; mtr: the target reached, its hop's loss at most `max_loss_percent`). Returns null when it passes, else the error code to store.
 */
export function nodeFailure(
  type: MonitorType,
  config: Record<string, unknown>,
  r: NodeResult,
): string | null {
  if (!r.success) return r.error?.code ?? "probe_error";
  const d = r.detail ?? {};
  switch (type) {
    case "http": {
      if (!statusExpected(d.status_code, config.expected_status)) return "unexpected_status";
      if (typeof config.keyword === "string") {
        const found = d.keyword_found === true;
        if (config.keyword_absent === true ? found : !found)
          return config.keyword_absent === true ? "keyword_present" : "keyword_missing";
      }
      return null;
    }
    case "ping": {
      const loss = typeof d.packet_loss === "number" ? d.packet_loss : Number(d.loss_percent ?? 0);
      const max = typeof config.max_loss_percent === "number" ? config.max_loss_percent : 0;
      return loss > max ? "packet_loss" : null;
    }
    case "dns": {
      if (typeof config.expected_value !== "string") return null;
      const answers = Array.isArray(d.answers) ? (d.answers as { value?: unknown; data?: unknown }[]) : [];
      const want = config.expected_value.trim().toLowerCase().replace(/\.$/, "");
      const seen = answers.some((a) =>
        [a.value, a.data].some(
          (v) => typeof v === "string" && v.trim().toLowerCase().replace(/\.$/, "") === want,
        ),
      );
      return seen ? null : "unexpected_answer";
    }
    case "mtr": {
      if (d.reached !== true) return "not_reached";
      const hops = Array.isArray(d.hops) ? (d.hops as { loss_pct?: unknown }[]) : [];
      const loss = Number(hops.at(-1)?.loss_pct ?? 100);
      const max = typeof config.max_loss_percent === "number" ? config.max_loss_percent : 0;
      return loss > max ? "packet_loss" : null;
    }
    default:
      return null;
  }
}
