import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { accessLog, createLogger, flushLogger, hundredths, TurnBatch } from "./logger.js";

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

  it("many batches share one exit listener, and each one's waiting lines are written when the process exits", () => {
    const before = process.listenerCount("exit");
    for (let i = 0; i < 20; i++) new TurnBatch(recordingSink().sink).write("waiting\n");
    expect(process.listenerCount("exit") - before).toBeLessThanOrEqual(1);

    // A process that exits at once, its lines still in their batches (50 ms from being passed on).
    const logger = fileURLToPath(new URL("./logger.ts", import.meta.url));
    const script = `
      import { writeSync } from "node:fs";
      import { TurnBatch } from ${JSON.stringify(logger)};
      const sink = { write: (b) => writeSync(1, b), flush: (cb) => cb?.(), flushSync: () => {} };
      for (let i = 0; i < 3; i++) new TurnBatch(sink).write("batch " + i + "\\n");
      process.exit(0);`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(out.split("\n").filter(Boolean).sort()).toEqual(["batch 0", "batch 1", "batch 2"]);
  });
});

describe("access log line", () => {
  it("is the line log.info writes for the same fields: same keys in the same order, ms in hundredths", () => {
    const { writes, sink } = recordingSink();
    const log = createLogger("info", "vantage-controller", sink);
    const write = accessLog(log);
    const cases: [string, string, number, number, string?][] = [
      ["/healthz", "GET", 200, 0.004],
      ["/v1/nodes", "HEAD", 404, 0.07],
      ['/a "quoted" \\ path', "POST", 400, 1.5],
      ["/節點/ü", "DELETE", 204, 12.345],
      ["/slow", "GET", 503, 30_000.999],
      // A probe's line names the task it created, after the path.
      ["/v1/probe/tcp", "POST", 200, 1234.5, "task_mhb0v3k2x9a1b2c3d4e5f6a7"],
    ];
    for (const [path, method, status, ms, taskId] of cases) {
      write("req_abc-1.2:3", method, path, status, ms, taskId);
      const task = taskId === undefined ? {} : { task_id: taskId };
      log.info(
        { request_id: "req_abc-1.2:3", method, path, ...task, status, ms: Math.round(ms * 100) / 100 },
        "request",
      );
    }
    flushLogger(log);
    const lines = writes.join("").split("\n").filter(Boolean);
    expect(lines).toHaveLength(2 * cases.length);
    const withoutTime = (l: string) => l.replace(/"time":"[^"]+"/, '"time":""');
    for (let i = 0; i < cases.length; i++) {
      const [direct, viaPino] = [lines[2 * i]!, lines[2 * i + 1]!];
      expect(withoutTime(direct)).toBe(withoutTime(viaPino));
      expect(JSON.parse(direct)).toMatchObject({ path: cases[i]![0], msg: "request", level: 30 });
      expect(JSON.parse(direct).task_id).toBe(cases[i]![4]);
    }
  });

  it("formats ms as String(Math.round(ms * 100) / 100) does", () => {
    const values = [0, 0.001, 0.005, 0.015, 0.1, 0.25, 0.999, 1, 9.99, 10.01, 99.5, 1e6 + 0.07, 123456.789];
    for (let h = 0; h < 20_000; h += 7) values.push(h / 100, h / 100 + 0.004, h / 1000);
    for (const ms of values) expect(hundredths(ms)).toBe(String(Math.round(ms * 100) / 100));
    // Out of the whole-number range: the plain formatting.
    expect(hundredths(3e9)).toBe(String(3e9));
  });
});
