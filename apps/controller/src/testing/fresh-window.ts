/**
 * Limits count in fixed windows aligned to the epoch (a minute window starts at every whole minute, a
 * 15-minute one at :00, :15, :30 and :45). A test that spends a limit and then expects a 429 fails if a
 * window boundary falls in between: it calls this first, which waits for the next window when less than
 * `leftMs` of the current one remains.
 */
export async function freshWindow(windowMs: number, leftMs = 20_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < leftMs) await new Promise((r) => setTimeout(r, left + 50));
}

/** `freshWindow` for minute windows (the API's per-minute limits). */
export function freshMinute(leftMs = 20_000): Promise<void> {
  return freshWindow(60_000, leftMs);
}
