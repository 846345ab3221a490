import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Snapshot } from "./snapshot.js";

const gzipAsync = promisify(gzip);

/** How long a rendering is served from memory; a change made through this controller drops it at once. */
export const CACHE_TTL_MS = 10_000;
/** Pages kept at most (least recently filled dropped first). */
const MAX_PAGES = 1000;

/** Renderings at least this long are also kept gzip'd (the HTML page: 66 KiB, 7 KiB gzip'd). */
export const GZIP_MIN_BYTES = 1024;

/**
 * One rendering, made once per snapshot and answered as it is: a cache hit encodes, hashes and compresses
 * nothing (the HTML page of 50 components is 66 KiB; encoding it per request was most of a hit's cost).
 */
export interface Rendered {
  body: string;
  /** `body` as UTF-8. */
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  /**
   * `bytes` gzip'd, compressed once off the event loop (zlib's thread pool); undefined for a short body,
   * and a failed compression resolves undefined (the body then goes out as it is).
   */
  gzip: Promise<Uint8Array<ArrayBuffer> | undefined> | undefined;
  /** The ETag of the gzip'd body (another representation, so another strong tag). */
  gzipEtag: string;
}

/** `body` prepared for answering: bytes, tags and the start of its compression. */
export function prepare(body: string): Rendered {
  const bytes = Buffer.from(body);
  const hash = createHash("sha1").update(bytes).digest("base64url");
  return {
    body,
    bytes,
    etag: `"${hash}"`,
    gzip:
      bytes.length < GZIP_MIN_BYTES
        ? undefined
        : gzipAsync(bytes).then(
            // zlib's answer is a Buffer over its own ArrayBuffer.
            (z) => z as Uint8Array<ArrayBuffer>,
            () => undefined,
          ),
    gzipEtag: `"${hash}-gzip"`,
  };
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
    const made = prepare(render(snapshot));
    entry.outputs.set(kind, made);
    return made;
  }

  drop(slug: string | undefined): void {
    if (slug !== undefined) this.pages.delete(slug);
  }
}
