import { promisify } from "node:util";
import { constants, crc32, deflateRaw } from "node:zlib";

const deflateRawAsync = promisify(deflateRaw);

/** Below this, the envelope is built as text per request, as `ok()` would (the cheapest for small lists). */
export const PREPARED_MIN_BYTES = 32 * 1024;

/** gzip member header: magic, deflate, no flags, no mtime, no extra flags, OS unknown (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

export interface PreparedBody {
  body: string | Uint8Array<ArrayBuffer>;
  /** Whether `body` is gzip (send `Content-Encoding: gzip`). */
  gzip: boolean;
}

/**
 * `{"data":<data>,"request_id":"<id>"}` for a large data text that many requests share (the node list of
 * thousands of nodes: 2.3 MB for 10,000). Its first part, everything up to the request id, is encoded once
 * per data text, and compressed once for clients that accept gzip; a request adds only its id:
 * - plain: the encoded first part and the tail, one copy;
 * - gzip: the first part deflated once and ended with a sync flush (byte-aligned, not final), then per
 *   request the tail as a final stored block and the trailer (CRC-32 continued over the tail, total size):
 *   one ordinary gzip member, so any client decodes it; the list compresses about fifteenfold, which is
 *   what a client reading the whole list over a network waits for.
 * Small data texts are answered as text without anything kept.
 */
export class PreparedEnvelope {
  private data: string | undefined;
  private head: Buffer | undefined;
  private gz: Promise<{ deflated: Buffer; crc: number; size: number }> | undefined;

  /**
   * Encodes and compresses `data` ahead of any request (a large one), resolving once both are done: what
   * `body()` then answers for it costs a copy. A failed compression is tried again by the next request.
   */
  async prepare(data: string): Promise<void> {
    if (data.length < PREPARED_MIN_BYTES) return;
    const head = this.headOf(data);
    try {
      await this.gzipOf(head);
    } catch {
      this.gz = undefined;
    }
  }

  private headOf(data: string): Buffer {
    if (this.data !== data || !this.head) {
      this.data = data;
      this.head = Buffer.from(`{"data":${data},"request_id":`);
      this.gz = undefined;
    }
    return this.head;
  }

  private gzipOf(head: Buffer): Promise<{ deflated: Buffer; crc: number; size: number }> {
    // Compressed off the event loop (zlib's thread pool), once per data text; level 1: a tenth of the
    // time of the default level for a few percent more bytes.
    this.gz ??= deflateRawAsync(head, { level: 1, finishFlush: constants.Z_SYNC_FLUSH }).then((d) => ({
      deflated: Buffer.concat([GZIP_HEADER, d]),
      crc: crc32(head),
      size: head.length,
    }));
    return this.gz;
  }

  async body(data: string, requestId: string, acceptsGzip: boolean): Promise<PreparedBody> {
    if (data.length < PREPARED_MIN_BYTES) {
      return { body: `{"data":${data},"request_id":${JSON.stringify(requestId)}}`, gzip: false };
    }
    const head = this.headOf(data);
    const tail = Buffer.from(`${JSON.stringify(requestId)}}`);
    if (!acceptsGzip || tail.length > 0xffff) return { body: Buffer.concat([head, tail]), gzip: false };
    const pending = this.gzipOf(head);
    let gz: { deflated: Buffer; crc: number; size: number };
    try {
      gz = await pending;
    } catch {
      this.gz = undefined; // tried again by the next request; this one goes out uncompressed
      return { body: Buffer.concat([head, tail]), gzip: false };
    }
    const len = tail.length;
    // A final stored block (BFINAL 1, BTYPE 00) at a byte boundary: LEN and its one's complement, little-endian.
    const stored = Buffer.from([0x01, len & 0xff, len >> 8, ~len & 0xff, (~len >> 8) & 0xff]);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc32(tail, gz.crc) >>> 0, 0);
    trailer.writeUInt32LE((gz.size + tail.length) >>> 0, 4);
    return { body: Buffer.concat([gz.deflated, stored, tail, trailer]), gzip: true };
  }
}

/** Moved to the HTTP layer (status pages negotiate gzip too); exported here as before. */
export { acceptsGzip } from "../../../http/accept-encoding.js";
