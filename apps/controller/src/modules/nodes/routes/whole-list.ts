import { DataTag } from "./etag.js";
import { PreparedEnvelope } from "./prepared-envelope.js";

/** A whole list at least this large is answered from a body rebuilt at most every WHOLE_LIST_REBUILD_MS. */
export const WHOLE_LIST_CACHED_MIN_BYTES = 512 * 1024;
/** How long a large whole list's prepared body answers before the directory is looked at again. */
export const WHOLE_LIST_REBUILD_MS = 250;

/** One whole list as answered: its data text, that data's tag, and its encoded and compressed envelope. */
export interface WholeListBody {
  data: string;
  tag: string;
  body: PreparedEnvelope;
}

/** Where the data comes from: `NodeList` (`peekJson` when at hand without waiting, else `json`). */
export interface WholeListSource {
  peekJson(): string | undefined;
  json(): Promise<string>;
}

/**
 * `GET /v1/nodes` without a query, for a large list (10,000 nodes: 2.3 MB, 140 KiB gzip'd): every request
 * used to hash, encode and await the compression of a list that had changed since the last one (the
 * directory hands out a new snapshot up to once a second), so the requests arriving meanwhile all waited
 * for it (p99 64–124 ms in `bench:nodes` against 19 ms p50). Now:
 * - the answered body (data, tag, encoded and gzip'd envelope head) is rebuilt at most every `rebuildMs`
 *   (WHOLE_LIST_REBUILD_MS): within that time a request takes it as it is, without looking at the directory;
 * - after it, the first request looks: unchanged data keeps the body; changed data is prepared (tagged,
 *   encoded, compressed on zlib's thread pool) while the previous body keeps answering, and replaces it once
 *   ready. One preparation at a time.
 * So the list answered is at most `rebuildMs` plus one preparation (tens of ms) behind the directory, and
 * the tag always goes with the body it tags. A list under `minBytes` is taken from the directory on every
 * request, as a small list costs little (each node's status is then never behind it).
 */
export class WholeList {
  private served: WholeListBody | undefined;
  private lookedAt = Number.NEGATIVE_INFINITY;
  private preparing: Promise<WholeListBody> | undefined;
  private readonly tags = new DataTag();

  constructor(
    private readonly source: WholeListSource,
    private readonly opts: { rebuildMs?: number; minBytes?: number; now?: () => number } = {},
  ) {}

  /** The body to answer with now (see the class). */
  async current(): Promise<WholeListBody> {
    const now = (this.opts.now ?? Date.now)();
    const served = this.served;
    const large =
      served !== undefined && served.data.length >= (this.opts.minBytes ?? WHOLE_LIST_CACHED_MIN_BYTES);
    if (
      large &&
      (this.preparing ||
        (now - this.lookedAt < (this.opts.rebuildMs ?? WHOLE_LIST_REBUILD_MS) && now >= this.lookedAt))
    ) {
      return served;
    }
    this.lookedAt = now;
    const data = this.source.peekJson() ?? (await this.source.json());
    if (served && data === served.data) return served;
    const next = this.prepare(data);
    // A large list keeps answering with the body it has while the next one is prepared.
    if (large && data.length >= (this.opts.minBytes ?? WHOLE_LIST_CACHED_MIN_BYTES)) return served;
    return next;
  }

  private prepare(data: string): Promise<WholeListBody> {
    const p = this.preparing;
    if (p) return p.then((b) => (b.data === data ? b : this.prepare(data)));
    const body = new PreparedEnvelope();
    const next = { data, tag: this.tags.of(data), body };
    const done = body.prepare(data).then(() => {
      this.served = next;
      return next;
    });
    this.preparing = done.finally(() => {
      this.preparing = undefined;
    });
    return this.preparing;
  }
}
