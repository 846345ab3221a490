import { formatNumber, formatTime, messages } from "../i18n.js";
import type { Beat } from "./monitor-runs.js";

const t = messages({
  en: {
    summary: "The last {n} runs: {pass} passed, {fail} failed, {missed} missed",
    pass: "passed",
    fail: "failed",
    missed: "missed: no run came",
    ms: "{n} ms",
    older: "older",
    newer: "newest",
  },
  cn: {
    summary: "最近 {n} 次运行：{pass} 次通过，{fail} 次失败，{missed} 次缺失",
    pass: "通过",
    fail: "失败",
    missed: "缺失：该次运行未发生",
    ms: "{n} 毫秒",
    older: "较早",
    newer: "最新",
  },
  tw: {
    summary: "最近 {n} 次執行：{pass} 次通過，{fail} 次失敗，{missed} 次缺漏",
    pass: "通過",
    fail: "失敗",
    missed: "缺漏：該次執行未發生",
    ms: "{n} 毫秒",
    older: "較早",
    newer: "最新",
  },
});

function beatTitle(b: Beat): string {
  const when = formatTime(b.at);
  if (b.kind !== "pass" || !b.run) return `${when} · ${t(b.kind)}`;
  const fastest = Math.min(...b.run.nodes.map((n) => n.latency_ms ?? Number.POSITIVE_INFINITY));
  return Number.isFinite(fastest)
    ? `${when} · ${t("pass")} · ${t("ms", { n: formatNumber(fastest, 1) })}`
    : `${when} · ${t("pass")}`;
}

/**
 * The monitor's last runs as a row of bars, oldest on the left: green passed, red failed, an outlined gap
 * where the schedule expected a run and none came. The bars share the row's width (phones included); the
 * row's label says the counts in words, each bar's title its time and outcome.
 */
export function HeartbeatBar({ beats, compact }: { beats: Beat[]; compact?: boolean }) {
  const count = (k: Beat["kind"]) => beats.filter((b) => b.kind === k).length;
  const label = t("summary", {
    n: beats.length,
    pass: count("pass"),
    fail: count("fail"),
    missed: count("missed"),
  });
  return (
    <div class={compact ? "heartbeat compact" : "heartbeat"}>
      <div class="beats" role="img" aria-label={label}>
        {beats.map((b) => (
          <span class={`beat beat-${b.kind}`} data-beat={b.kind} title={beatTitle(b)} />
        ))}
      </div>
      {compact ? null : (
        <div class="beats-scale muted" aria-hidden="true">
          <span>{t("older")}</span>
          <span>{t("newer")}</span>
        </div>
      )}
    </div>
  );
}
