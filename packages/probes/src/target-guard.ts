import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { type BlockCategory, matchIpv4, matchIpv6 } from "./blocked-ranges.js";
import { bareAddress, inPrefix, ipv4ToNumber, ipv6ToBigInt, numberToIpv4 } from "./ip-address.js";
import { onAbort } from "./outcome.js";
import { ProbeFailure } from "./probe-failure.js";
import type { HostLookup } from "./types.js";

export type { BlockCategory, BlockedRange } from "./blocked-ranges.js";
export { blockedIpv4Ranges, blockedIpv6Ranges } from "./blocked-ranges.js";
// What the guard throws, for code that reaches it through the `@vantage/probes/target-guard` subpath.
export { ProbeFailure } from "./probe-failure.js";

export interface AddressVerdict {
  /** The address as given, brackets and zone removed. */
  address: string;
  family: 4 | 6 | null;
  blocked: boolean;
  category: BlockCategory | null;
  /** The matching CIDR, e.g. `127.0.0.0/8`. */
  range: string | null;
  /** For IPv6 forms carrying an IPv4 address (mapped, NAT64, 6to4, Teredo…): that IPv4 address. */
  embedded_ipv4: string | null;
}

type EmbeddedForm = { name: string; base: string; prefix: number; extract: (v: bigint) => number[] };
const low32 = (v: bigint): number => Number(v & 0xffffffffn);

/**
 * IPv6 forms whose packets end up at an IPv4 address: the IPv4 address decides. `alwaysBlock` marks the
 * deprecated IPv4-compatible form, which no network routes, so it is refused even around a public address.
 */
const embeddedForms: (EmbeddedForm & { alwaysBlock?: boolean })[] = [
  { name: "ipv4-mapped", base: "::ffff:0:0", prefix: 96, extract: (v) => [low32(v)] },
  { name: "ipv4-translated", base: "::ffff:0:0:0", prefix: 96, extract: (v) => [low32(v)] },
  { name: "ipv4-compatible", base: "::", prefix: 96, extract: (v) => [low32(v)], alwaysBlock: true },
  { name: "nat64", base: "64:ff9b::", prefix: 96, extract: (v) => [low32(v)] },
  { name: "6to4", base: "2002::", prefix: 16, extract: (v) => [Number((v >> 80n) & 0xffffffffn)] },
  // Teredo: server IPv4 in bits 32–63, client IPv4 obfuscated (bit-inverted) in the last 32 bits.
  {
    name: "teredo",
    base: "2001::",
    prefix: 32,
    extract: (v) => [Number((v >> 64n) & 0xffffffffn), ~low32(v) >>> 0],
  },
];
const compiledForms = embeddedForms.map((f) => ({ ...f, baseValue: ipv6ToBigInt(f.base) ?? 0n }));

/** Classifies one IP literal. Anything that is not an IP address is reported blocked (fail closed). */
export function checkAddress(ip: string): AddressVerdict {
  const address = bareAddress(ip.trim());
  const v4 = ipv4ToNumber(address);
  if (v4 !== null) {
    const hit = matchIpv4(v4);
    return verdict(address, 4, hit?.category ?? null, hit?.cidr ?? null, null);
  }
  const v6 = ipv6ToBigInt(address);
  if (v6 === null) return verdict(address, null, "invalid", null, null);
  if (v6 > 1n) {
    for (const form of compiledForms) {
      if (!inPrefix(v6, form.baseValue, form.prefix, 128)) continue;
      const inner = form.extract(v6);
      for (const n of inner) {
        const hit = matchIpv4(n);
        if (hit) return verdict(address, 6, hit.category, `${form.name} ${hit.cidr}`, numberToIpv4(n));
      }
      const first = numberToIpv4(inner[0] ?? 0);
      if (form.alwaysBlock) return verdict(address, 6, "reserved", `${form.base}/${form.prefix}`, first);
      return verdict(address, 6, null, null, first);
    }
  }
  const hit = matchIpv6(v6);
  return verdict(address, 6, hit?.category ?? null, hit?.cidr ?? null, null);
}

function verdict(
  address: string,
  family: 4 | 6 | null,
  category: BlockCategory | null,
  range: string | null,
  embedded: string | null,
): AddressVerdict {
  return { address, family, blocked: category !== null, category, range, embedded_ipv4: embedded };
}

export function isBlockedAddress(ip: string): boolean {
  return checkAddress(ip).blocked;
}

export interface ResolveOptions {
  allowPrivate: boolean;
  family?: 4 | 6 | undefined;
  /** Longest wait for the resolver, ms (the probe's own timeout); unbounded when omitted. */
  timeoutMs?: number | undefined;
  /** Stops waiting for the resolver at once. */
  signal?: AbortSignal | undefined;
  /** The resolver to ask; the system's (getaddrinfo: /etc/hosts, then DNS) when omitted. */
  lookup?: HostLookup | undefined;
}

export interface ResolvedTarget {
  /** The one address the probe will use: pinned, so a second lookup cannot swap it (DNS rebinding). */
  address: string;
  family: 4 | 6;
  /** Time spent in the resolver, ms (0 for a literal). */
  lookup_ms: number;
  /**
   * Only for a name resolved without a fixed family: its first address of the other family, already checked
   * by the guard, for a caller that tries it when `address` refuses or cannot be reached (as curl does).
   */
  fallback?: { address: string; family: 4 | 6 } | undefined;
}

/**
 * Resolves `host` once (a literal is used as is), picks the first address of the wanted family and checks
 * that very address. Throws ProbeFailure: `invalid_target`, `dns_resolution_failed`, `target_not_allowed`,
 * and `timeout` when `timeoutMs` passes or `signal` aborts before the resolver answers.
 */
export async function resolveAndCheck(host: string, opts: ResolveOptions): Promise<ResolvedTarget> {
  const bare = bareAddress(host.trim());
  if (bare === "") throw new ProbeFailure("invalid_target", "empty host");
  let address: string;
  let family: 4 | 6;
  let fallback: ResolvedTarget["fallback"];
  const started = performance.now();
  if (isIP(bare) !== 0) {
    family = isIP(bare) === 6 ? 6 : 4;
    if (opts.family !== undefined && opts.family !== family) {
      throw new ProbeFailure("invalid_target", `${bare} is not an IPv${opts.family} address`);
    }
    address = bare;
  } else {
    const picked = await lookupFirst(bare, opts);
    address = picked.address;
    family = picked.family;
    fallback = picked.other !== undefined && allowed(picked.other.address, opts) ? picked.other : undefined;
  }
  const lookupMs = isIP(bare) !== 0 ? 0 : performance.now() - started;
  assertAllowed(address, opts.allowPrivate, isIP(bare) !== 0 ? undefined : bare);
  return {
    address,
    family,
    lookup_ms: Math.round(lookupMs * 1000) / 1000,
    ...(fallback === undefined ? {} : { fallback }),
  };
}

/** Throws `target_not_allowed` when the guard is on and `address` is refused. */
export function assertAllowed(address: string, allowPrivate: boolean, name?: string): void {
  if (allowPrivate) return;
  const v = checkAddress(address);
  if (!v.blocked) return;
  const subject = name ? `${name} resolves to ${v.address}, which` : v.address;
  throw new ProbeFailure(
    "target_not_allowed",
    `${subject} is in a ${v.category?.replace("_", "-")} range (${v.range ?? "not an IP address"})`,
  );
}

function allowed(address: string, opts: ResolveOptions): boolean {
  return opts.allowPrivate || !checkAddress(address).blocked;
}

/** getaddrinfo's answers as dns.lookup names them, in words. */
const lookupErrors: Record<string, string> = {
  ENOTFOUND: "no such name, or no address for it",
  EAI_AGAIN: "the node's resolver did not answer",
  EAI_FAIL: "the node's resolver failed",
};

const systemLookup: HostLookup = (host, family) => lookup(host, { all: true, family, verbatim: true });

type Picked = { address: string; family: 4 | 6 };

/** The first address of the wanted family; with none wanted, also the first of the other family. */
async function lookupFirst(host: string, opts: ResolveOptions): Promise<Picked & { other?: Picked }> {
  const { family } = opts;
  let all: { address: string; family: number }[];
  try {
    all = await bounded(() => (opts.lookup ?? systemLookup)(host, family ?? 0), host, opts);
  } catch (error) {
    if (error instanceof ProbeFailure) throw error;
    const code = (error as { code?: string }).code ?? "";
    const why = lookupErrors[code];
    throw new ProbeFailure(
      "dns_resolution_failed",
      `cannot resolve ${host}: ${why ? `${why} (${code})` : code || String(error)}`,
    );
  }
  const first = all.find((a) => family === undefined || a.family === family);
  if (!first) {
    const what = family === undefined ? "no address" : `no IPv${family} address`;
    throw new ProbeFailure("dns_resolution_failed", `cannot resolve ${host}: it has ${what} (ENOTFOUND)`);
  }
  const picked: Picked = { address: first.address, family: first.family === 6 ? 6 : 4 };
  const other =
    family === undefined ? all.find((a) => a.family === (picked.family === 6 ? 4 : 6)) : undefined;
  return other === undefined
    ? picked
    : { ...picked, other: { address: other.address, family: picked.family === 6 ? 4 : 6 } };
}

/**
 * getaddrinfo runs on libuv's thread pool and cannot be cancelled, so the probe stops waiting instead: the
 * lookup is raced against the deadline and the abort, and a late answer is dropped. Running out of time is
 * `timeout`, not `dns_resolution_failed`: the resolver never said the name does not resolve, the probe's
 * time (or the caller's patience) ran out first, the same code a connect or query that outlives it gets.
 */
async function bounded<T>(start: () => Promise<T>, host: string, opts: ResolveOptions): Promise<T> {
  const { timeoutMs, signal } = opts;
  if (signal?.aborted) throw new ProbeFailure("timeout", `stopped before resolving ${host}`);
  const work = start();
  if (timeoutMs === undefined && signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    // Whichever comes first settles; every path drops the timer and the listener, a hung lookup included.
    const finish = (settle: () => void): void => {
      clearTimeout(timer);
      removeAbort();
      settle();
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            finish(() =>
              reject(new ProbeFailure("timeout", `no address for ${host} within ${timeoutMs} ms`)),
            );
          }, timeoutMs);
    const removeAbort = onAbort(signal, () => {
      finish(() => reject(new ProbeFailure("timeout", `stopped while resolving ${host}`)));
    });
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
