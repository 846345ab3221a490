import { createHash } from "node:crypto";

/**
 * A weak entity tag of a `data` text: the same for the same data, whatever the request id the envelope
 * carries (hence weak: the bodies differ only in `request_id`). The last one made is kept, so the whole
 * list's tag costs one hash per rebuilt list, not one per request.
 */
export class DataTag {
  private data: string | undefined;
  private tag = "";

  of(data: string): string {
    if (data !== this.data) {
      this.data = data;
      this.tag = `W/"${createHash("sha1").update(data).digest("base64url").slice(0, 22)}"`;
    }
    return this.tag;
  }
}

/** Whether an `If-None-Match` header names `tag` (or is `*`), compared weakly as RFC 9110 asks for GET. */
export function matchesTag(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const bare = tag.startsWith("W/") ? tag.slice(2) : tag;
  for (const part of header.split(",")) {
    const t = part.trim();
    if (t === "*") return true;
    if ((t.startsWith("W/") ? t.slice(2) : t) === bare) return true;
  }
  return false;
}
