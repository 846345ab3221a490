import { messages } from "../i18n.js";

const t = messages({
  en: { up: "Up", down: "Down", unknown: "Unknown", active: "Active", paused: "Paused" },
  cn: { up: "正常", down: "故障", unknown: "未知", active: "运行中", paused: "已暂停" },
  tw: { up: "正常", down: "異常", unknown: "未知", active: "執行中", paused: "已暫停" },
});

export function stateLabel(state: "up" | "down" | "unknown"): string {
  return t(state);
}

export function statusLabel(status: "active" | "paused"): string {
  return t(status);
}

/**
 * A monitor's (or node's) state as the API says it: a dot and the word, never colour alone (the word is
 * the text: ui's StatusDot keeps its label in an absolutely placed span, which widens a scrolled table).
 */
export function StateBadge({ state }: { state: "up" | "down" | "unknown" }) {
  const label = t(state);
  return (
    <span class={state === "up" ? "ok" : state === "down" ? "bad" : "muted"} data-state={state}>
      <span
        class={`dot dot-${state === "up" ? "ok" : state === "down" ? "bad" : "unknown"}`}
        aria-hidden="true"
      />
      {label}
    </span>
  );
}
