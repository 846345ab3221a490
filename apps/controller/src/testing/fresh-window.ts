/**
 * Limits count in fixed windows aligned to the epoch (a minute window starts at every whole minute). A test
 * that spends a limit and then expects a 429 fails if a window boundary falls in between: it calls this
 * first, which waits for the next minute when less than `leftMs` of the current one remains.
 */
export async function freshMinute(leftMs = 20_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < leftMs) await new Promise((r) => setTimeout(r, left + 50));
}
