import { toUtcDate } from "./parse-date.js";
import { parseJprs } from "./parse-jprs.js";
import { parseNominet } from "./parse-nominet.js";
import { isNotFound, type TextField, textKeys } from "./text-keys.js";
import { normaliseNameServers, normaliseServer, type TextRecord } from "./text-record.js";

export interface ParseOptions {
  /** An IP answer (RIR formats): fills `network`, never expiry or name servers. */
  ip: boolean;
  /** Offset for date-times printed without a zone, minutes east of UTC (see parse-date.ts). */
  zonelessOffsetMinutes: number;
}

/**
 * Parses one answer: "not_found" when it says the name or address does not exist, else a record. The
 * format is recognised by its content, not by the server (tests, mirrors and proxies use other hosts):
 * JPRS's `[Domain Name]` lines, Nominet's indented blocks, and `key: value` lines for everything else.
 */
export function parseWhoisText(text: string, opts: ParseOptions): TextRecord | "not_found" {
  if (isNotFound(text)) return "not_found";
  if (!opts.ip && /^\s*(?:[a-z]\.\s*)?\[(?:domain name|ドメイン名)\]/im.test(text)) return parseJprs(text);
  if (!opts.ip && /^[ \t]+domain name:[ \t]*$/im.test(text)) return parseNominet(text);
  return parseKeyValue(text, opts);
}

interface Entry {
  field: TextField;
  value: string;
  /** Index of the paragraph (blank-line separated) the line is in. */
  block: number;
}

/** `key: value` lines, keys mapped through the table; comments (`%`, `#`, `>>>`) and unknown keys dropped. */
function entries(text: string): Entry[] {
  const out: Entry[] = [];
  let block = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") {
      block++;
      continue;
    }
    if (/^\s*(%|#|>>>)/.test(line)) continue;
    const m = /^\s*([^:]{1,80}?)[\s.]*:\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    const key = (m[1] ?? "").toLowerCase().replace(/\s+/g, " ");
    const field = textKeys[key];
    if (field !== undefined && m[2]) out.push({ field, value: m[2], block });
  }
  return out;
}

function parseKeyValue(text: string, opts: ParseOptions): TextRecord {
  const all = entries(text);
  const first = (field: TextField) => all.find((e) => e.field === field)?.value ?? null;
  const referral = normaliseServer(first("referral"));
  if (opts.ip) return { ...ipRecord(all), referral };
  const expires = first("expires");
  const registrar = first("registrar");
  return {
    // A registrar given as a URL or an IANA id only is no name: `Registrar: http://…` is left out.
    registrar: registrar && !/^https?:\/\//i.test(registrar) ? registrar : null,
    expires_at: expires ? toUtcDate(expires, opts.zonelessOffsetMinutes) : null,
    name_servers: normaliseNameServers(all.filter((e) => e.field === "name_server").map((e) => e.value)),
    referral,
    recognised: all.some((e) => e.field !== "referral"),
  };
}

/**
 * An RIR answer. ARIN lists the networks holding the address from the widest to the most specific and the
 * organisation in its own paragraph; RIPE-style databases give one `inetnum` and an `organisation` object.
 * So: the network is the last paragraph with a range; the name of its holder the organisation's.
 */
function ipRecord(all: Entry[]): Omit<TextRecord, "referral"> {
  const ranges = all.filter((e) => e.field === "net_range");
  const block = ranges.at(-1)?.block;
  const inBlock = (field: TextField) =>
    all.find((e) => e.block === block && e.field === field)?.value ?? null;
  const last = (field: TextField) => all.findLast((e) => e.field === field)?.value ?? null;
  const range = inBlock("net_range");
  const [start = null, end = null] = range ? range.split(/\s+-\s+/) : [];
  const orgRef = inBlock("net_org_ref")?.replace(/\s*\([^)]*\)\s*$/, "") ?? null;
  return {
    registrar: last("net_org") ?? orgRef,
    expires_at: null,
    name_servers: [],
    network: {
      name: inBlock("net_name"),
      start: start && end ? start : (inBlock("net_cidr") ?? start),
      end: start && end ? end : null,
      cidr: inBlock("net_cidr")?.split(/[\s,]+/)[0] ?? (range?.includes("/") ? range : null),
      country: (inBlock("country") ?? last("country"))?.toUpperCase() ?? null,
    },
    recognised: ranges.length > 0,
  };
}
