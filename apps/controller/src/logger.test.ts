import { describe, expect, it } from "vitest";
import { TurnBatch } from "./logger.js";

/** A sink that records each write it is handed, as sonic-boom (buffer mode) would receive them. */
function recordingSink() {
  const writes: string[] = [];
  return {
    writes,
    sink: {
      write: (chunk: Buffer) => {
        writes.push(chunk.toString("utf8"));
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
    expect(writes[0]?.split("\n").filter(Boolean)).toEqual(
      Array.from({ length: 100 }, (_, i) => `{"n":${i}}`),
    );
  });

  it("writes at once when 64 KiB are waiting, and what is left on flushSync", () => {
    const { writes, sink } = recordingSink();
    const batch = new TurnBatch(sink);
    const line = `${"x".repeat(1023)}\n`;
    for (let i = 0; i < 65; i++) batch.write(line);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBe(line.repeat(64));
    batch.flushSync();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe(line);
  });

  it("keeps non-ASCII text whole, in order, across batches", () => {
    const { writes, sink } = recordingSink();
    const batch = new TurnBatch(sink);
    // 3-byte characters: lines that do not fit by their length alone are measured.
    const lines = Array.from({ length: 60 }, (_, i) => `{"msg":"${"節點".repeat(200 + 5 * i)}","i":${i}}\n`);
    for (const l of lines) batch.write(l);
    batch.flushSync();
    expect(writes.length).toBeGreaterThan(1);
    expect(writes.join("")).toBe(lines.join(""));
    for (const w of writes.slice(0, -1)) expect(Buffer.byteLength(w)).toBeLessThanOrEqual(68 * 1024);
  });

  it("passes a line larger than a batch on by itself, after what came before it", () => {
    const { writes, sink } = recordingSink();
    const batch = new TurnBatch(sink);
    const big = `${"y".repeat(100_000)}\n`;
    batch.write("first\n");
    batch.write(big);
    batch.write("last\n");
    batch.flushSync();
    expect(writes).toEqual(["first\n", big, "last\n"]);
  });
});
