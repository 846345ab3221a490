import { describe, expect, it } from "vitest";
import { parseLocations } from "../src/components/location-text.js";

describe("node choice by place", () => {
  it("reads comma-separated selectors as the API's locations, :n as a count", () => {
    expect(parseLocations(" DE, europe:3 ,germany+hetzner,, ")).toEqual([
      "DE",
      { selector: "europe", count: 3 },
      "germany+hetzner",
    ]);
    expect(parseLocations(" , ")).toEqual([]);
  });
});
