import { describe, expect, it } from "vitest";
import { randomHex } from "./random-hex.js";

describe("randomHex", () => {
  it("gives hex of the asked length, across pool refills, without repeats", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const h = randomHex(8);
      expect(h).toMatch(/^[0-9a-f]{16}$/);
      seen.add(h);
    }
    expect(seen.size).toBe(2000);
    expect(randomHex(10)).toMatch(/^[0-9a-f]{20}$/);
    expect(randomHex(5000)).toHaveLength(10_000);
  });

  it("uses every byte value (not a stuck or short pool)", () => {
    const bytes = new Set<string>();
    for (let i = 0; i < 4000; i++) bytes.add(randomHex(1));
    expect(bytes.size).toBe(256);
  });
});
