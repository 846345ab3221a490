import { describe, expect, it } from "vitest";
import { pastedHost } from "./pasted-host.js";

describe("pastedHost: what people paste where a host is meant", () => {
  it.each([
    ["example.com", { host: "example.com" }],
    ["  example.com  ", { host: "example.com" }],
    ["example.com:8443", { host: "example.com", port: 8443 }],
    ["example.com/status?x=1", { host: "example.com" }],
    ["https://Example.com:8443/status", { host: "example.com", port: 8443, schemePort: 443 }],
    ["http://example.net/", { host: "example.net", schemePort: 80 }],
    ["ssh://example.org", { host: "example.org", schemePort: 22 }],
    ["gopher://example.org:70/", { host: "example.org", port: 70 }],
    ["http://[2001:db8::2]:8080/", { host: "2001:db8::2", port: 8080, schemePort: 80 }],
    ["[2001:db8::1]:443", { host: "2001:db8::1", port: 443 }],
    ["[2001:db8::1]", { host: "2001:db8::1" }],
    ["2001:db8::1", { host: "2001:db8::1" }],
    ["192.0.2.1:53", { host: "192.0.2.1", port: 53 }],
  ])("%j → %j", (text, parts) => {
    expect(pastedHost(text)).toEqual(parts);
  });

  it("leaves what it cannot take apart as typed, for the caller's host check to refuse", () => {
    // Brackets hold IPv6 addresses only.
    expect(pastedHost("[x.invalid]")).toEqual({ host: "[x.invalid]" });
    expect(pastedHost("[x.invalid]:53")).toEqual({ host: "[x.invalid]", port: 53 });
    // Not a URL after all (a space in the host), nor host:port.
    expect(pastedHost("http://exa mple.com/")).toEqual({ host: "http:" });
    expect(pastedHost("a:b:c")).toEqual({ host: "a:b:c" });
    expect(pastedHost("host:port")).toEqual({ host: "host:port" });
  });

  it("reports a port out of range as given: the caller judges it", () => {
    expect(pastedHost("example.com:99999")).toEqual({ host: "example.com", port: 99_999 });
  });
});
