import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { WholeList } from "./whole-list.js";

/** A list source whose data the test sets, counting how often it is looked at. */
function source(first: string) {
  const s = {
    data: first,
    looks: 0,
    peekJson() {
      s.looks++;
      return s.data;
    },
    json: async () => s.data,
  };
  return s;
}

const big = (tag: string) =>
  JSON.stringify({ items: Array.from({ length: 4000 }, (_, i) => ({ id: `${tag}-${i}`, name: "n" })) });
const gunzipped = async (w: WholeList) => {
  const b = await w.current();
  const { body, gzip } = await b.body.body(b.data, "req_1", true);
  expect(gzip).toBe(true);
  return JSON.parse(gunzipSync(body).toString("utf8")).data.items[0].id as string;
};

describe("WholeList", () => {
  it("a large list: looked at once per rebuild interval, a change served once prepared, the tag with it", async () => {
    let now = 1_000;
    const src = source(big("a"));
    const w = new WholeList(src, { rebuildMs: 250, minBytes: 1024, now: () => now });
    const first = await w.current();
    expect(first.data).toBe(src.data);
    expect(first.tag).toMatch(/^W\//);
    expect(await gunzipped(w)).toBe("a-0");

    // Within the interval the directory is not looked at, even when it has changed.
    const looks = src.looks;
    src.data = big("b");
    now += 249;
    expect(await w.current()).toBe(first);
    expect(src.looks).toBe(looks);

    // After it: the change is seen; the previous body answers while the next is prepared, then the next.
    now += 1;
    expect(await w.current()).toBe(first);
    expect(src.looks).toBe(looks + 1);
    let next = await w.current();
    for (let i = 0; i < 100 && next === first; i++) {
      await new Promise((r) => setTimeout(r, 10));
      now += 300;
      next = await w.current();
    }
    expect(next.data).toBe(src.data);
    expect(next.tag).not.toBe(first.tag);
    expect(await gunzipped(w)).toBe("b-0");

    // Unchanged data keeps the body (and its tag) across intervals.
    now += 1_000;
    expect(await w.current()).toBe(next);
  });

  it("a small list is taken from the directory on every request", async () => {
    const src = source('{"items":[]}');
    const w = new WholeList(src, { rebuildMs: 60_000, now: () => 0 });
    expect((await w.current()).data).toBe('{"items":[]}');
    src.data = '{"items":[{"id":"x"}]}';
    const changed = await w.current();
    expect(changed.data).toBe(src.data);
    expect(changed.tag).not.toBe((await new WholeList(source('{"items":[]}')).current()).tag);
  });
});
