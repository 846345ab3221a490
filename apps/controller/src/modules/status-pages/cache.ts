import { createHash } from "node:crypto";
import type { Snapshot } from "./snapshot.js";

/** How long a rendering is served from memory; a change made through this controller drops it at once. */
export const CACHE_TTL_MS = 10_000;
/** Pages kept at most (least recently filled dropped first). */
const MAX_PAGES = 1000;

export interface Rendered {
  body: string;
  etag: string;
}

interface Entry {
  expires: number;
  snapshot: Promise<Snapshot | undefined>;
  outputs: Map<string, Rendered>;
}

/**
 * Renderings of public pages by slug, kept `CACHE_TTL_MS`. A miss reads the snapshot once however many
 * requests wait for it; `drop(slug)` (a change) empties the slug's entry, and a read already in flight
 * for the dropped entry is not stored.
 */
export class RenderCache {
  private readonly pages = new Map<string, Entry>();
  constructor(
    private readonly load: (slug: string) => Promise<Snapshot | undefined>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The rendering `kind` of the page, made by `render` from its snapshot; undefined: no such page. */
  async get(slug: string, kind: string, render: (s: Snapshot) => string): Promise<Rendered | undefined> {
    let entry = this.pages.get(slug);
    if (!entry || entry.expires <= this.now()) {
      const fresh: Entry = {
        expires: this.now() + CACHE_TTL_MS,
        snapshot: this.load(slug),
        outputs: new Map(),
      };
      // A failed read is not kept: the next request tries again.
      fresh.snapshot.catch(() => {
        if (this.pages.get(slug) === fresh) this.pages.delete(slug);
      });
      if (this.pages.size >= MAX_PAGES) {
        const oldest = this.pages.keys().next().value;
        if (oldest !== undefined) this.pages.delete(oldest);
      }
      this.pages.delete(slug);
      this.pages.set(slug, fresh);
      entry = fresh;
    }
    const hit = entry.outputs.get(kind);
    if (hit) return hit;
    const snapshot = await entry.snapshot;
    if (!snapshot) return undefined;
    const body = render(snapshot);
    const made = { body, etag: `"${createHash("sha1").update(body).digest("base64url")}"` };
    entry.outputs.set(kind, made);
    return made;
  }

  drop(slug: string | undefined): void {
    if (slug !== undefined) this.pages.delete(slug);
  }
}
