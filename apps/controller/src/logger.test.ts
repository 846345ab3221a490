import { describe, expect, it } from "vitest";
import { TurnBatch } from "./logger.js";

/** A sink that records each write it is handed, as sonic-boom would receive them. */
function recordingSink() {
  const writes: string[] = [];
  return {
    writes,
    sink: {
      write: (chunk: string) => {
        writes.push(chunk);
        return true;
      },
      flush: (cb?: (err?: Error) => void) => cb?.(),
      flushSync: () => {},
    },
  };
}

describe("log line batching", () => {
  it("passes the lines of a burst on as one write within 50 ms", async () => {
    const { writes, sink } = recordingSink();
    const batch = new TurnBatch(sink);
    for (let i = 0; i < 100; i++) batch.write(`{"n":${i}}\n`);
    expect(writes).toEqual([]);
    await new Promise((r) => setTimeout(r, 80));
    expect(writes).toHaveLength(1);
    expect(writes[0]?.split("\n").filter(Boolean)).toHaveLength(100);
  });

  it("writes at once when 16 KiB are waiting, and what is left on flushSync", () => {
    const { writes, sink } = recordingSink();
    const batch = new TurnBatch(sink);
    const line = `${"x".repeat(1023)}\n`;
    for (let i = 0; i < 17; i++) batch.write(line);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toHaveLength(16 * 1024);
    batch.flushSync();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe(line);
  });
});
