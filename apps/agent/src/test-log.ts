import { Writable } from "node:stream";
import { type Logger, pino } from "pino";

/** A pino logger at `debug` whose lines the test reads back as objects (level 40 = warn). */
export function captureLog(): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split("\n"))
        if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { log: pino({ level: "debug" }, stream), lines };
}
