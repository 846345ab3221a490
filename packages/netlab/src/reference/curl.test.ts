import { describe, expect, it } from "vitest";
import { curlWriteOut, parseCurl } from "./curl.js";

// Captured from curl 7.88.1 with `-w "$curlWriteOut"` against the lab's HTTPS server.
const https = `http_code=200
remote_ip=203.0.113.10
time_namelookup=0.003038
time_connect=0.003318
time_appconnect=0.007022
time_starttransfer=0.010352
time_total=0.010387
`;

describe("parseCurl", () => {
  it("converts curl's cumulative seconds to milliseconds", () => {
    const r = parseCurl(https);
    expect(r.httpCode).toBe(200);
    expect(r.remoteIp).toBe("203.0.113.10");
    expect(r.namelookup).toBeCloseTo(3.038, 6);
    expect(r.appconnect).toBeCloseTo(7.022, 6);
    expect(r.total).toBeCloseTo(10.387, 6);
  });

  it("names a missing figure", () => {
    expect(() => parseCurl("http_code=000\n")).toThrow(/time_namelookup/);
  });

  it("asks curl for every figure it parses", () => {
    for (const key of ["http_code", "remote_ip", "time_namelookup", "time_starttransfer", "time_total"]) {
      expect(curlWriteOut).toContain(`${key}=%{${key}}`);
    }
  });
});
