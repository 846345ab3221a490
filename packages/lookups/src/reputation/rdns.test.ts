import { describe, expect, it } from "vitest";
import { classifyPtrName } from "./rdns.js";

const none = { hosting: null, residential: null, vpnProxy: null };

describe("classifyPtrName", () => {
  it.each([
    ["vps-12.example.net", "81.2.3.4", { hosting: '"vps"' }],
    ["vps12345.hosting.example", "81.2.3.4", { hosting: '"vps"' }],
    ["static.4.3.2.81.clients.your-server.de", "81.2.3.4", { hosting: "your-server.de" }],
    ["ec2-81-2-3-4.compute-1.amazonaws.com", "81.2.3.4", { hosting: "amazonaws.com" }],
    ["4.3.2.81.bc.googleusercontent.com", "81.2.3.4", { hosting: "googleusercontent.com" }],
    ["dedi3.colo.example", "81.2.3.4", { hosting: '"dedi"' }],
    ["server1.example.org", "81.2.3.4", { hosting: '"server"' }],
    ["dsl-81-2-3-4.dynamic.isp.example", "81.2.3.4", { residential: '"dsl"' }],
    ["pool-81-2-3-4.bstnma.fios.example", "81.2.3.4", { residential: '"pool"' }],
    ["cpe-81-2-3-4.socal.res.rr.example", "81.2.3.4", { residential: '"cpe"' }],
    ["c-81-2-3-4.hsd1.ca.comcast.example", "81.2.3.4", { residential: "the address in the name" }],
    ["4-3-2-81.cust.isp.example", "81.2.3.4", { residential: "the address in the name" }],
    ["host081002003004.isp.example", "81.2.3.4", { hosting: '"host"' }],
    ["user081002003004.isp.example", "81.2.3.4", { residential: "the address in the name" }],
    ["vpn-nl-3.provider.example", "81.2.3.4", { vpnProxy: { keyword: "vpn", tag: "vpn" } }],
    ["nordvpn-se12.example", "81.2.3.4", { vpnProxy: { keyword: "nordvpn", tag: "vpn" } }],
    ["proxy1.example.org", "81.2.3.4", { vpnProxy: { keyword: "proxy", tag: "proxy" } }],
    ["tor-exit.example.org", "81.2.3.4", { vpnProxy: { keyword: "tor-exit", tag: "tor" } }],
    ["exit1.relays.example", "81.2.3.4", { vpnProxy: { keyword: "exit", tag: "tor" } }],
    ["mail.example.com", "81.2.3.4", {}],
    ["tor1.droplet.example", "81.2.3.4", {}], // a city code, not Tor
    ["host.example.", "2001:db8::1", { hosting: '"host"' }],
  ])("%s (%s)", (name, ip, expected) => {
    expect(classifyPtrName(name, ip)).toEqual({ ...none, ...expected });
  });

  it("does not mistake other numbers for the address", () => {
    expect(classifyPtrName("a-181-2-3-44.example", "81.2.3.4").residential).toBeNull();
    expect(classifyPtrName("81-2-3-45.example", "81.2.3.4").residential).toBeNull();
  });
});
