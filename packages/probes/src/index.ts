export { dnsProbe } from "./dns.js";
export { httpProbe } from "./http.js";
export * from "./http-request-params.js";
export { mtrProbe } from "./mtr.js";
export { pingProbe } from "./ping.js";
export { ProbeFailure } from "./probe-failure.js";
export * from "./probe-params.js";
export * from "./probe-results.js";
export { probes, runProbe } from "./registry.js";
export {
  type AddressVerdict,
  assertAllowed,
  type BlockCategory,
  type BlockedRange,
  blockedIpv4Ranges,
  blockedIpv6Ranges,
  checkAddress,
  isBlockedAddress,
  type ResolvedTarget,
  type ResolveOptions,
  resolveAndCheck,
} from "./target-guard.js";
export { tcpProbe } from "./tcp.js";
export { tracerouteProbe } from "./traceroute.js";
export * from "./types.js";
