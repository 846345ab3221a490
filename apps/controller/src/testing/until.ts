/** Waits until `cond` holds, checking every `everyMs`; throws `not <what> within <ms> ms` past `ms`. */
export async function until(
  what: string,
  cond: () => boolean | Promise<boolean>,
  ms = 20_000,
  everyMs = 100,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
