import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ipToBigInt } from "../ip/address.js";

/*
 * IANA's RDAP bootstrap registries (RFC 9224). Every file has one shape: `services` is a list of
 * `[[keys…], [base URLs…]]`; the keys are TLDs (dns.json), CIDRs (ipv4/ipv6.json) or AS ranges (asn.json).
 */

const bootstrapFileSchema = z.object({
  version: z.string().optional(),
  publication: z.string(),
  description: z.string().optional(),
  // A third element is allowed: IANA's object-tags registry carries one, and extra data must not break us.
  services: z.array(z.tuple([z.array(z.string()), z.array(z.string().min(1)).min(1)], z.unknown())),
});
export type RdapBootstrapFile = z.infer<typeof bootstrapFileSchema>;

export const rdapBootstrapFiles = ["dns", "ipv4", "ipv6", "asn"] as const;
export type RdapBootstrap = Record<(typeof rdapBootstrapFiles)[number], RdapBootstrapFile>;

/** The copy shipped with the package (README there: source, commit, data date, licence). */
export const shippedBootstrapDir = fileURLToPath(new URL("../../data/rdap-bootstrap/", import.meta.url));

/**
 * Reads and checks `dns.json`, `ipv4.json`, `ipv6.json` and `asn.json` from `dir` (the shipped snapshot when
 * omitted or blank). Throws an Error naming the file and the first problem: missing, not JSON, or not
 * shaped as a bootstrap registry. Synchronous: it runs once, at start-up.
 */
export function loadRdapBootstrap(dir?: string | undefined): RdapBootstrap {
  const from = dir === undefined || dir.trim() === "" ? shippedBootstrapDir : dir;
  const read = (name: (typeof rdapBootstrapFiles)[number]): RdapBootstrapFile => {
    const file = join(from, `${name}.json`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      const why = error instanceof SyntaxError ? `not JSON (${error.message})` : (error as Error).message;
      throw new Error(`RDAP bootstrap ${file}: ${why}`);
    }
    const parsed = bootstrapFileSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "file";
    throw new Error(`RDAP bootstrap ${file}: ${where}: ${issue?.message ?? "not a bootstrap registry"}`);
  };
  return { dns: read("dns"), ipv4: read("ipv4"), ipv6: read("ipv6"), asn: read("asn") };
}

let shipped: RdapBootstrap | undefined;
/** The shipped snapshot, read on first use. */
export function shippedRdapBootstrap(): RdapBootstrap {
  shipped ??= loadRdapBootstrap();
  return shipped;
}

/** https first (RFC 9224 §4 asks clients to prefer it), then the registry's own order. */
function pickUrl(urls: string[]): string | undefined {
  return urls.find((u) => u.toLowerCase().startsWith("https://")) ?? urls[0];
}

/** The RDAP base URL of the longest registered suffix of `domain` (`co.uk` before `uk`), if any. */
export function rdapBaseForDomain(bootstrap: RdapBootstrap, domain: string): string | undefined {
  const byTld = domainIndex(bootstrap.dns);
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i < labels.length; i++) {
    const urls = byTld.get(labels.slice(i).join("."));
    if (urls) return pickUrl(urls);
  }
  return undefined;
}

/** The RDAP base URL of the longest bootstrap prefix holding `ip`, if any. */
export function rdapBaseForIp(bootstrap: RdapBootstrap, ip: string): string | undefined {
  const family = isIP(ip) === 4 ? 4 : isIP(ip) === 6 ? 6 : 0;
  if (family === 0) return undefined;
  const value = toBigInt(ip);
  if (value === null) return undefined;
  const bits = family === 4 ? 32 : 128;
  let best: { length: number; urls: string[] } | undefined;
  for (const p of prefixIndex(family === 4 ? bootstrap.ipv4 : bootstrap.ipv6, family)) {
    const shift = BigInt(bits - p.length);
    if (value >> shift === p.base >> shift && (!best || p.length > best.length)) best = p;
  }
  return best ? pickUrl(best.urls) : undefined;
}

// Indexes built once per bootstrap object (the controller loads one at start-up).
const domainIndexes = new WeakMap<RdapBootstrapFile, Map<string, string[]>>();
const prefixIndexes = new WeakMap<RdapBootstrapFile, Prefix[]>();

interface Prefix {
  base: bigint;
  length: number;
  urls: string[];
}

function domainIndex(file: RdapBootstrapFile): Map<string, string[]> {
  let index = domainIndexes.get(file);
  if (!index) {
    index = new Map();
    for (const [tlds, urls] of file.services) {
      for (const tld of tlds) index.set(tld.toLowerCase().replace(/^\.|\.$/g, ""), urls);
    }
    domainIndexes.set(file, index);
  }
  return index;
}

function prefixIndex(file: RdapBootstrapFile, family: 4 | 6): Prefix[] {
  let index = prefixIndexes.get(file);
  if (!index) {
    index = [];
    for (const [cidrs, urls] of file.services) {
      for (const cidr of cidrs) {
        const [addr = "", len = ""] = cidr.split("/");
        const base = isIP(addr) === family ? toBigInt(addr) : null;
        const length = Number(len);
        // A key that is not a CIDR of this family is skipped: one bad entry must not hide the others.
        if (base !== null && Number.isInteger(length) && length >= 0 && length <= (family === 4 ? 32 : 128)) {
          index.push({ base, length, urls });
        }
      }
    }
    prefixIndexes.set(file, index);
  }
  return index;
}

/** An IP address as one number (IPv4 32 bits, IPv6 128); null for anything else. */
export const toBigInt = ipToBigInt;
