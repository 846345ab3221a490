import { describe, expect, it } from "vitest";
import { sampleMessage } from "../testing/channels.js";
import { alertText, truncate, truncateBytes, utcTime } from "./text.js";
import type { AlertMessage } from "./types.js";

const kinds = ["down", "up", "reminder", "test"] as const;
const locales = ["en", "cn", "tw"] as const;

describe("alert texts", () => {
  it("every kind has a title and a body in en, cn and tw, naming the monitor, its target and the time", () => {
    for (const locale of locales) {
      for (const kind of kinds) {
        const text = alertText(sampleMessage(kind, locale));
        expect(text.title.length).toBeGreaterThan(0);
        expect(text.lines[0]).toContain("2026-07-01 12:34:56 UTC");
        if (kind !== "test") {
          expect(text.title).toContain("Shop API");
          expect(text.lines[0]).toContain("https://shop.example.com/health");
        }
      }
    }
  });

  it("cn is simplified and tw traditional Chinese", () => {
    const cn = alertText(sampleMessage("down", "cn"));
    const tw = alertText(sampleMessage("down", "tw"));
    expect(cn.lines.join("\n")).toContain("失败节点");
    expect(tw.lines.join("\n")).toContain("失敗節點");
    expect(alertText(sampleMessage("up", "cn")).title).toBe("恢复：Shop API");
    expect(alertText(sampleMessage("up", "tw")).title).toBe("恢復：Shop API");
    expect(alertText(sampleMessage("test", "tw")).title).toBe("Vantage 測試告警");
    expect(alertText(sampleMessage("test", "cn")).title).toBe("Vantage 测试告警");
  });

  it("names the first ten failing nodes and counts the rest", () => {
    const message: AlertMessage = {
      ...sampleMessage("down"),
      nodes: Array.from({ length: 13 }, (_, i) => ({ node_id: `n${i}`, error_code: "timeout" })),
    };
    const line = alertText(message).lines.find((l) => l.startsWith("Failing nodes: "));
    expect(line).toContain("n9 (timeout), +3 more");
    expect(line).not.toContain("n10");
    expect(alertText({ ...message, locale: "cn" }).lines.join()).toContain("等另外 3 个");
  });

  it("shows a name as written, `$&` and braces included", () => {
    const message = sampleMessage("down");
    message.monitor!.name = "$& {t} $1";
    expect(alertText(message).title).toBe("DOWN: $& {t} $1");
    expect(alertText(message).lines[0]).toMatch(/^\$& \{t\} \$1 \(http /);
  });

  it("leaves out the error, nodes and dashboard when there are none", () => {
    const text = alertText({
      kind: "up",
      event_id: "e",
      monitor: { id: "m", name: "DNS", type: "dns", target: "example.com" },
      occurred_at: "2026-01-02T03:04:05Z",
      locale: "en",
    });
    expect(text).toEqual({
      title: "UP: DNS",
      lines: ["DNS (dns example.com) is up again since 2026-01-02 03:04:05 UTC."],
    });
  });

  it("formats and cuts", () => {
    expect(utcTime("2026-07-01T14:34:56+02:00")).toBe("2026-07-01 12:34:56 UTC");
    expect(utcTime("yesterday")).toBe("yesterday");
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("abc", 4)).toBe("abc");
    expect(truncateBytes("错误错误", 9)).toBe("错误…"); // 3 + 3 + 3 bytes
    expect(truncateBytes("错误", 6)).toBe("错误");
  });
});
