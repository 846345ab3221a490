import { roundMs } from "./clock.js";

export interface RttStats {
  min: number;
  avg: number;
  max: number;
  mdev: number;
}

/**
 * min/avg/max/mdev as iputils ping computes them: mdev = sqrt(mean(rtt²) − mean(rtt)²), the population
 * standard deviation (not the sample one), over the replies received. Null when nothing came back.
 */
export function rttStats(rtts: readonly number[]): RttStats | null {
  if (rtts.length === 0) return null;
  const n = rtts.length;
  const sum = rtts.reduce((a, b) => a + b, 0);
  const sumSquares = rtts.reduce((a, b) => a + b * b, 0);
  const avg = sum / n;
  // Float error can make the difference a hair below zero when every RTT is equal.
  const mdev = Math.sqrt(Math.max(0, sumSquares / n - avg * avg));
  return {
    min: roundMs(Math.min(...rtts)),
    avg: roundMs(avg),
    max: roundMs(Math.max(...rtts)),
    mdev: roundMs(mdev),
  };
}

/** Loss in percent as iputils prints it, kept to three decimals. */
export function lossPercent(sent: number, received: number): number {
  if (sent === 0) return 0;
  return Math.round(((sent - received) / sent) * 100 * 1000) / 1000;
}
