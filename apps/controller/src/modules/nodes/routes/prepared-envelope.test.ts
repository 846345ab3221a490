import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { acceptsGzip, PREPARED_MIN_BYTES, PreparedEnvelope } from "./prepared-envelope.js";

const envelopeText = (data: string, id: string) => `{"data":${data},"request_id":${JSON.stringify(id)}}`;
const text = (body: string | Uint8Array) =>
  typeof body === "string" ? body : Buffer.from(body).toString("utf8");

describe("PreparedEnvelope", () => {
  const large = (tag: string) =>
    JSON.stringify({
      items: Array.from({ length: 1500 }, (_, i) => ({ id: `${tag}${i}`, name: `Nöde ${i} ✓` })),
    });

  it("answers small data as the envelope text, never compressed", async () => {
    const p = new PreparedEnvelope();
    const data = '{"items":[]}';
    expect(await p.body(data, "req_1", true)).toEqual({ body: envelopeText(data, "req_1"), gzip: false });
  });

  it("answers large data plain or as one gzip member decoding to the same envelope, per request id", async () => {
    const p = new PreparedEnvelope();
    for (const tag of ["first", "second"]) {
      const data = large(tag);
      expect(data.length).toBeGreaterThanOrEqual(PREPARED_MIN_BYTES);
      for (const id of ["req_a", "req_b", `x${"y".repeat(127)}`, 'odd"id\\']) {
        const plain = await p.body(data, id, false);
        expect(plain.gzip).toBe(false);
        expect(text(plain.body)).toBe(envelopeText(data, id));
        const zipped = await p.body(data, id, true);
        expect(zipped.gzip).toBe(true);
        // gunzip checks the trailer's CRC-32 and size: a wrong one throws.
        expect(gunzipSync(zipped.body).toString("utf8")).toBe(envelopeText(data, id));
      }
    }
  });
});

describe("acceptsGzip", () => {
  it.each([
    [undefined, false],
    ["", false],
    ["gzip", true],
    ["GZIP", true],
    ["deflate, gzip;q=0.5", true],
    ["x-gzip", true],
    ["gzip;q=0", false],
    ["gzip; q=0.0, *", false],
    ["br, *", true],
    ["*;q=0", false],
    ["identity", false],
    ["br, deflate", false],
  ])("%j → %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
