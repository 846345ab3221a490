import { domainToASCII } from "node:url";
import { guardedRequest } from "../net/guarded-http.js";
import { type LookupContext, LookupError } from "../types.js";
import { type IcpNumber, validateIcpNumber } from "./icp-number.js";
import type { IcpOptions } from "./schema.js";

/*
 * The third-party provider, by the small HTTP contract in ./README.md: `GET {url}?domain=<ascii>` with
 * `Authorization: Bearer <key>`; a 2xx JSON record (MIIT field names accepted) or an explicit "no
 * registration". Every other outcome is a failure, and the lookup moves on to the next source.
 */

const DEFAULT_TIMEOUT_MS = 5000;
const MAX_BYTES = 256 * 1024;

export type ProviderAnswer =
  | { registered: false }
  | { registered: true; number: IcpNumber; company: string; nature: string };

const FIELDS = {
  number: ["icpnumber", "servicelicence", "sitelicense", "sitelicence", "icp"],
  // Only read when there is no website number: the main licence is otherwise derived from that number.
  main: ["mainlicence", "mainlicense"],
  company: ["company", "unitname", "companyname"],
  nature: ["nature", "naturename", "companytype"],
  domain: ["domain"],
} as const;

/** Asks the provider about `domain` (ASCII). Rejects with LookupError only, messages free of its URL. */
export async function askProvider(
  domain: string,
  provider: NonNullable<IcpOptions["provider"]>,
  ctx: Pick<LookupContext, "signal" | "lookup">,
  remainingMs: number,
): Promise<ProviderAnswer> {
  let url: URL;
  try {
    url = new URL(provider.url);
  } catch {
    throw new LookupError("unavailable", "the provider URL is not a URL");
  }
  url.searchParams.set("domain", domain);
  const headers: Record<string, string> = { accept: "application/json" };
  if (provider.key) headers.authorization = `Bearer ${provider.key}`;
  const timeoutMs = Math.min(provider.timeoutMs ?? DEFAULT_TIMEOUT_MS, remainingMs);
  let res: Awaited<ReturnType<typeof guardedRequest>>;
  try {
    // The operator named this server (often a local proxy): it is not a target, so no guard.
    res = await guardedRequest(
      url.href,
      { headers, timeoutMs, maxBytes: MAX_BYTES },
      { ...ctx, allowPrivate: true },
    );
  } catch (error) {
    // The URL may carry a key in its query: it never reaches a message.
    if (error instanceof LookupError)
      throw new LookupError(error.code, error.message.replaceAll(url.href, "provider"));
    throw error;
  }
  if (res.status === 401 || res.status === 403) {
    throw new LookupError("upstream_error", `provider refused the key (HTTP ${res.status})`);
  }
  if (res.status < 200 || res.status > 299)
    throw new LookupError("upstream_error", `provider answered HTTP ${res.status}`);
  if (res.truncated) throw new LookupError("upstream_error", `provider answer is over ${MAX_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString("utf8"));
  } catch {
    throw new LookupError("upstream_error", "provider answer is not JSON");
  }
  return readAnswer(body, domain);
}

type Json = Record<string, unknown>;

/** The contract above, applied to a parsed body. Exported for the table tests. */
export function readAnswer(body: unknown, domain: string): ProviderAnswer {
  if (!isObject(body)) throw bad("is not a JSON object");
  let node: unknown = body;
  for (let depth = 0; depth < 3 && isObject(node); depth++) {
    if (node.success === false)
      throw bad(`says it failed${typeof node.msg === "string" ? `: ${node.msg}` : ""}`);
    if (saysNone(node)) return { registered: false };
    const inner = pick(node, ["data", "result", "params"]);
    if (!isObject(inner) && !Array.isArray(inner)) break;
    node = inner;
  }
  if (isObject(node) && Array.isArray(node.list)) node = node.list;
  if (Array.isArray(node)) {
    if (node.length === 0) return { registered: false };
    node = node.find((r) => isObject(r) && sameSite(text(r, FIELDS.domain), domain)) ?? node[0];
  }
  if (!isObject(node)) throw bad("holds no record");
  if (saysNone(node)) return { registered: false };
  const raw = text(node, FIELDS.number) || text(node, FIELDS.main);
  if (!raw) throw bad("has neither an ICP number nor a no-registration answer");
  const number = validateIcpNumber(raw);
  if (!number) throw bad(`has a malformed ICP number: ${JSON.stringify(raw.slice(0, 64))}`);
  const recordDomain = text(node, FIELDS.domain);
  if (recordDomain && !sameSite(recordDomain, domain)) throw bad(`is about another domain: ${recordDomain}`);
  return {
    registered: true,
    number,
    company: text(node, FIELDS.company),
    nature: text(node, FIELDS.nature),
  };
}

function saysNone(node: Json): boolean {
  return (
    node.registered === false ||
    (typeof node.status === "string" && node.status.toLowerCase() === "not_found")
  );
}

/** A record's domain covers the one asked when it is the same, a parent (records are per site) or a child. */
function sameSite(recordDomain: string, domain: string): boolean {
  const r = domainToASCII(recordDomain.trim().toLowerCase().replace(/\.$/, ""));
  return r === domain || domain.endsWith(`.${r}`) || r.endsWith(`.${domain}`);
}

function pick(node: Json, names: readonly string[]): unknown {
  for (const [key, value] of Object.entries(node)) {
    if (names.includes(key.toLowerCase().replaceAll("_", ""))) return value;
  }
  return undefined;
}

function text(node: Json, names: readonly string[]): string {
  for (const name of names) {
    const value = pick(node, [name]);
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return "";
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function bad(what: string): LookupError {
  return new LookupError("upstream_error", `provider answer ${what}`);
}
