import type { Deadline } from "../net/deadline.js";
import { type LookupContext, LookupError } from "../types.js";
import { parseWhoisText } from "./parse-text.js";
import { parseServerAddress, queryPort43, type ServerAddress } from "./port43.js";
import type { WhoisResult } from "./schema.js";
import type { TextRecord } from "./text-record.js";
import {
  fillTemplate,
  ianaServer,
  ipServerFor,
  readIanaReferral,
  referralTemplate,
  registryServerFor,
  zonelessOffsetFor,
} from "./whois-servers.js";

/** No port-43 server is known for the name: neither the overrides, the table nor IANA name one. */
export class NoWhoisServer extends Error {}

type Ctx = Pick<LookupContext, "allowPrivate" | "lookup" | "whois">;

/**
 * Port-43 WHOIS: the registry's server (or, for an IP, ARIN's or the "ip" override), found through IANA
 * when neither the overrides nor the table know the TLD, then at most one referral, never to a server
 * already asked. For a domain the referral (a registrar's thick record) is read only when the registry's
 * answer lacks a field, and only fills those; for an IP it is the RIR holding the address, whose record
 * then wins. A referral that fails or times out (it gets half the time left) leaves the first answer.
 */
export async function whoisTextLookup(
  kind: "domain" | "ip",
  query: string,
  ctx: Ctx,
  deadline: Deadline,
): Promise<WhoisResult> {
  const overrides = ctx.whois?.whoisServers ?? {};
  const asked = new Set<string>();
  const ask = async (server: string, template: string, signal = deadline.signal): Promise<string> => {
    const address = serverAddress(server);
    asked.add(address.label);
    return queryPort43(address, fillTemplate(template, query), ctx, signal);
  };

  let choice = kind === "ip" ? ipServerFor(overrides) : registryServerFor(query, overrides);
  if (!choice) choice = await viaIana(query, overrides, ctx, deadline, asked);
  const opts = { ip: kind === "ip", zonelessOffsetMinutes: zonelessOffsetFor(query) };
  const text = await ask(choice.server, choice.template);
  const first = parseWhoisText(text, opts);
  const label = serverAddress(choice.server).label;
  if (first === "not_found") throw new LookupError("not_found", `${label} has no record of ${query}`);
  if (!first.recognised)
    throw new LookupError("upstream_error", `${label}: the answer holds no WHOIS record`);

  let record = first;
  let server = label;
  const referral = first.referral ? parseServerAddress(first.referral) : null;
  const wanted = kind === "ip" || gaps(first);
  if (referral && wanted && !asked.has(referral.label)) {
    try {
      const slice = deadline.slice(0.5);
      const second = parseWhoisText(
        await ask(referral.label, referralTemplate(referral.label), slice.signal),
        opts,
      );
      if (second !== "not_found" && second.recognised) {
        if (kind === "ip") {
          record = merge(second, first);
          server = referral.label;
        } else {
          record = merge(first, second);
        }
      }
    } catch (error) {
      // Enrichment only; a refusal by the guard is no reason to withhold the registry's answer either.
      if (!(error instanceof LookupError)) throw error;
    }
  }
  return {
    domain: query,
    registrar: record.registrar,
    expires_at: record.expires_at,
    name_servers: record.name_servers,
    source: "whois",
    server,
    ...(kind === "ip" && record.network ? { network: record.network } : {}),
  };
}

async function viaIana(
  domain: string,
  overrides: Record<string, string>,
  ctx: Ctx,
  deadline: Deadline,
  asked: Set<string>,
) {
  const tld = domain.split(".").at(-1) ?? domain;
  const iana = serverAddress(ianaServer(overrides));
  asked.add(iana.label);
  const referral = readIanaReferral(await queryPort43(iana, tld, ctx, deadline.signal));
  if (referral === "no_such_tld") throw new LookupError("not_found", `.${tld} is not a top-level domain`);
  if (referral === null) throw new NoWhoisServer(`no WHOIS server is known for .${tld}`);
  return { server: referral, template: referralTemplate(referral) };
}

function serverAddress(server: string): ServerAddress {
  const address = parseServerAddress(server);
  if (!address)
    throw new LookupError("upstream_error", `not a WHOIS server address: ${JSON.stringify(server)}`);
  return address;
}

function gaps(r: TextRecord): boolean {
  return r.registrar === null || r.expires_at === null || r.name_servers.length === 0;
}

/** `main`'s fields, `extra`'s where `main` has none. */
function merge(main: TextRecord, extra: TextRecord): TextRecord {
  const network = main.network ?? extra.network;
  return {
    registrar: main.registrar ?? extra.registrar,
    expires_at: main.expires_at ?? extra.expires_at,
    name_servers: main.name_servers.length > 0 ? main.name_servers : extra.name_servers,
    referral: main.referral,
    recognised: true,
    ...(network ? { network } : {}),
  };
}
