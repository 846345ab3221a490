import type { Deadline } from "../net/deadline.js";
import { guardedRequest } from "../net/guarded-http.js";
import { type LookupContext, LookupError } from "../types.js";
import { toUtcDate } from "./parse-date.js";
import type { WhoisResult } from "./schema.js";
import { normaliseNameServers } from "./text-record.js";

/** A registry record is a few KiB; a registrar's with its notices some tens. More is not a record. */
const MAX_RDAP_BYTES = 512 * 1024;

type Json = Record<string, unknown>;

/**
 * RDAP (RFC 9083) for a domain or an IP at `base` (a bootstrap URL). Rejects with LookupError:
 * `not_found` for a 404 (the registry says no such object: RFC 7480 §5.3), `upstream_error` for any other
 * status, a body that is not an RDAP object or is too big, and guardedRequest's codes. `share` is the part of
 * the time left RDAP may use, so a server that hangs leaves time for the WHOIS fallback.
 */
export async function rdapLookup(
  kind: "domain" | "ip",
  query: string,
  base: string,
  ctx: Pick<LookupContext, "allowPrivate" | "lookup">,
  deadline: Deadline,
  share: number,
): Promise<WhoisResult> {
  const url = `${base.endsWith("/") ? base : `${base}/`}${kind}/${query}`;
  const record = await fetchRdap(url, ctx, deadline.slice(share));
  const result = kind === "domain" ? domainFields(record) : ipFields(record);
  // Thin registries point at the registrar's record: read once, only to fill what the registry left out.
  const related = kind === "domain" && hasGaps(result) ? relatedLink(record, url) : undefined;
  if (related) {
    try {
      const extra = domainFields(await fetchRdap(related, ctx, deadline.slice(0.5)));
      result.registrar ??= extra.registrar;
      result.expires_at ??= extra.expires_at;
      if (result.name_servers.length === 0) result.name_servers = extra.name_servers;
    } catch {
      // Enrichment only: the registry's record stands without it.
    }
  }
  return { domain: query, ...result, source: "rdap", server: base };
}

type Fields = Pick<WhoisResult, "registrar" | "expires_at" | "name_servers" | "network">;

async function fetchRdap(
  url: string,
  ctx: Pick<LookupContext, "allowPrivate" | "lookup">,
  slice: { signal: AbortSignal; ms: number },
): Promise<Json> {
  const res = await guardedRequest(
    url,
    {
      headers: { accept: "application/rdap+json, application/json;q=0.9" },
      timeoutMs: slice.ms,
      maxBytes: MAX_RDAP_BYTES,
      // Some bootstrap URLs answer with a redirect to the registry's current server (RFC 7480 §5.2).
      maxRedirects: 2,
    },
    { allowPrivate: ctx.allowPrivate, lookup: ctx.lookup, signal: slice.signal },
  );
  if (res.status === 404) throw new LookupError("not_found", `${url}: the registry has no such object`);
  if (res.status !== 200) throw new LookupError("upstream_error", `${url} answered HTTP ${res.status}`);
  if (res.truncated) throw new LookupError("upstream_error", `${url}: answer over ${MAX_RDAP_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString("utf8"));
  } catch {
    throw new LookupError("upstream_error", `${url}: the answer is not JSON`);
  }
  if (!isObject(body) || typeof body["objectClassName"] !== "string") {
    throw new LookupError("upstream_error", `${url}: the answer is not an RDAP object`);
  }
  return body;
}

function domainFields(record: Json): Fields {
  const expiration = list(record["events"])
    .filter(isObject)
    .find((e) => /^expiration( date)?$/i.test(String(e["eventAction"] ?? "")));
  const date = typeof expiration?.["eventDate"] === "string" ? toUtcDate(expiration["eventDate"]) : null;
  const servers = list(record["nameservers"])
    .filter(isObject)
    .map((ns) => ns["ldhName"])
    .filter((n): n is string => typeof n === "string");
  return {
    registrar: entityName(record, "registrar"),
    expires_at: date,
    name_servers: normaliseNameServers(servers),
  };
}

/**
 * An IP network: `registrar` is the organisation the network is registered to (the registrant entity's
 * name); the network's own name, range and country go to `network`.
 */
function ipFields(record: Json): Fields {
  const str = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : null);
  const cidr = list(record["cidr0_cidrs"])
    .filter(isObject)
    .map((c) => {
      const prefix = c["v4prefix"] ?? c["v6prefix"];
      return typeof prefix === "string" && typeof c["length"] === "number"
        ? `${prefix}/${c["length"]}`
        : null;
    })
    .find((c) => c !== null);
  return {
    registrar: entityName(record, "registrant"),
    expires_at: null,
    name_servers: [],
    network: {
      name: str("name"),
      start: str("startAddress"),
      end: str("endAddress"),
      cidr: cidr ?? null,
      country: str("country")?.toUpperCase() ?? null,
    },
  };
}

function hasGaps(f: Fields): boolean {
  return f.registrar === null || f.expires_at === null || f.name_servers.length === 0;
}

/** The registrar's record: `links[rel=related, type=application/rdap+json]`, not the record itself. */
function relatedLink(record: Json, self: string): string | undefined {
  const link = list(record["links"])
    .filter(isObject)
    .find(
      (l) =>
        l["rel"] === "related" &&
        String(l["type"] ?? "").toLowerCase() === "application/rdap+json" &&
        typeof l["href"] === "string" &&
        l["href"].toLowerCase() !== self.toLowerCase(),
    );
  return link ? String(link["href"]) : undefined;
}

/** The vCard `fn` of the first entity having `role`, looking one level into nested entities too. */
function entityName(record: Json, role: string): string | null {
  const top = list(record["entities"]).filter(isObject);
  const nested = top.flatMap((e) => list(e["entities"]).filter(isObject));
  for (const entity of [...top, ...nested]) {
    if (!list(entity["roles"]).includes(role)) continue;
    const name = vcardFn(entity["vcardArray"]);
    if (name) return name;
  }
  return null;
}

/** `["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", "Example Registrar, Inc."], …]]`. */
function vcardFn(vcard: unknown): string | null {
  if (!Array.isArray(vcard) || !Array.isArray(vcard[1])) return null;
  for (const prop of vcard[1] as unknown[]) {
    if (Array.isArray(prop) && prop[0] === "fn" && typeof prop[3] === "string" && prop[3].trim()) {
      return prop[3].trim();
    }
  }
  return null;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An array as is; a lone object some servers send where an array belongs, as a list of one. */
function list(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return isObject(v) ? [v] : [];
}
