/**
 * The middle value of `values` (the mean of the two middle ones for an even count); NaN for none. The
 * fidelity tests compare medians where one late event-loop wake-up would move an average or a single sample.
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
