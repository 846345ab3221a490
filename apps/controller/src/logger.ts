import { type Logger, pino } from "pino";

export type { Logger };

export function createLogger(level: string, name = "vantage-controller"): Logger {
  return pino({ name, level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}
