import { Writable } from "node:stream";
import { type Level, type Logger, pino } from "pino";

/** A pino logger whose lines a test reads back as objects (`level` 30 = info, 40 = warn). */
export function captureLog(level: Level = "debug"): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split("\n"))
        if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { log: pino({ level }, stream), lines };
}
