/** One entry of a probe's `locations`: a selector (one node) or a selector with its count. */
export type LocationEntry = string | { selector: string; count: number };

/**
 * A typed list of places as the API's `locations`, read as the CLI's `--from` reads it: comma-separated
 * selectors, `selector:n` for n nodes (docs/node-selection.md). Blank items are dropped.
 */
export function parseLocations(text: string): LocationEntry[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(.+):(\d{1,2})$/.exec(s);
      return m ? { selector: m[1]!.trim(), count: Number(m[2]) } : s;
    });
}
