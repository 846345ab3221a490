import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { feature } from "topojson-client";
import { describe, expect, it } from "vitest";
import { type AtlasCountry, atlasAlpha2, countryPoints } from "../src/components/country-points.js";

const require = createRequire(import.meta.url);
const atlas = JSON.parse(readFileSync(require.resolve("world-atlas/countries-110m.json"), "utf8"));
const countries = (feature(atlas, "countries") as unknown as { features: AtlasCountry[] }).features;

/** The map's country table: every country the atlas draws has its point, where the country is. */
describe("country points", () => {
  const points = countryPoints(countries);

  it("names every country of the atlas (Kosovo by name) and the small places it leaves out", () => {
    for (const c of countries) {
      if (c.id === undefined) continue; // Kosovo (below), N. Cyprus and Somaliland have no numeric code
      const code = atlasAlpha2.get(String(c.id));
      expect(code, String(c.properties?.name)).toMatch(/^[A-Z]{2}$/);
      expect(points.has(code!), code).toBe(true);
    }
    expect(new Set(atlasAlpha2.values()).size).toBe(atlasAlpha2.size);
    for (const code of ["XK", "SG", "HK", "MO", "BH", "MT"]) expect(points.has(code), code).toBe(true);
  });

  it("puts a country's point in its main part, not between its territories", () => {
    const near = (code: string, lon: number, lat: number, within: number) => {
      const [x, y] = points.get(code)!;
      expect(Math.hypot(x - lon, y - lat), code).toBeLessThan(within);
    };
    near("FR", 2.5, 46.5, 3); // not pulled towards French Guiana
    near("US", -98, 39, 6); // the contiguous states, not Alaska
    near("NO", 12, 64, 6); // not Svalbard
    near("DE", 10.4, 51.1, 1.5);
    near("AU", 134, -25.5, 3);
    near("JP", 137, 36, 4);
    near("SG", 103.8, 1.35, 0.5);
  });
});
