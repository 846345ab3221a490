import { describe, expect, it } from "vitest";
import { LookupCache } from "./cache.js";

describe("LookupCache", () => {
  it("keeps an answer for its TTL, then asks again", async () => {
    let now = 1_000;
    const cache = new LookupCache<number>(10, () => now);
    let calls = 0;
    const load = async () => ++calls;
    expect(await cache.get("k", load, () => 5_000)).toEqual({ value: 1, cached: false });
    now += 4_999;
    expect(await cache.get("k", load, () => 5_000)).toEqual({ value: 1, cached: true });
    now += 1;
    expect(await cache.get("k", load, () => 5_000)).toEqual({ value: 2, cached: false });
  });

  it("keeps nothing with a TTL of 0, nor a failure", async () => {
    const cache = new LookupCache<number>(10);
    let calls = 0;
    await cache.get(
      "zero",
      async () => ++calls,
      () => 0,
    );
    expect(
      await cache.get(
        "zero",
        async () => ++calls,
        () => 0,
      ),
    ).toEqual({ value: 2, cached: false });
    await expect(
      cache.get(
        "bad",
        async () => Promise.reject(new Error("boom")),
        () => 60_000,
      ),
    ).rejects.toThrow("boom");
    expect(
      await cache.get(
        "bad",
        async () => 7,
        () => 60_000,
      ),
    ).toEqual({ value: 7, cached: false });
  });

  it("runs one load per key at a time: concurrent callers share it", async () => {
    const cache = new LookupCache<string>(10);
    let calls = 0;
    let release: (v: string) => void = () => {};
    const load = () => {
      calls++;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    };
    const all = Promise.all([1, 2, 3].map(() => cache.get("same", load, () => 1_000)));
    await new Promise((r) => setImmediate(r));
    release("answer");
    const answers = await all;
    expect(calls).toBe(1);
    expect(answers.map((a) => a.value)).toEqual(["answer", "answer", "answer"]);
  });

  it("holds at most maxEntries, dropping the least recently used", async () => {
    const cache = new LookupCache<string>(2);
    const put = (k: string) =>
      cache.get(
        k,
        async () => k,
        () => 60_000,
      );
    await put("a");
    await put("b");
    await put("a"); // a is now the most recently used
    await put("c"); // b goes
    expect(cache.size).toBe(2);
    expect((await put("a")).cached).toBe(true);
    expect((await put("b")).cached).toBe(false);
  });

  it("peek, put and touch work on the same entries as get, for a caller answering synchronously", async () => {
    let now = 1_000;
    const cache = new LookupCache<string>(2, () => now);
    expect(cache.peek("a")).toBeUndefined();
    cache.put("a", "A", 5_000);
    cache.put("b", "B", 5_000);
    expect(cache.peek("a")).toBe("A");
    // peek is no use: "a" stays the least recently used and goes first; touch is one.
    cache.touch("a");
    cache.put("c", "C", 5_000);
    expect([cache.peek("a"), cache.peek("b"), cache.peek("c")]).toEqual(["A", undefined, "C"]);
    expect(
      await cache.get(
        "c",
        async () => "new",
        () => 5_000,
      ),
    ).toEqual({ value: "C", cached: true });
    now += 5_000;
    expect(cache.peek("a")).toBeUndefined();
    cache.put("zero", "Z", 0);
    expect(cache.peek("zero")).toBeUndefined();
    let release: (v: string) => void = () => {};
    const loading = cache.get(
      "slow",
      () => new Promise<string>((r) => (release = r)),
      () => 5_000,
    );
    expect(cache.loading("slow")).toBe(true);
    release("S");
    expect(await loading).toEqual({ value: "S", cached: false });
    expect(cache.loading("slow")).toBe(false);
    expect(cache.peek("slow")).toBe("S");
  });
});
