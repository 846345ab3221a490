import { dnsRecordsLookup } from "./dns/records.js";
import { icpLookup } from "./icp/lookup.js";
import { ipLookup } from "./ip/lookup.js";
import { reputationLookup } from "./reputation/lookup.js";
import { sslLookup } from "./tls/lookup.js";
import {
  type Lookup,
  type LookupContext,
  LookupError,
  type LookupInputByKind,
  type LookupKind,
  type LookupResultByKind,
} from "./types.js";
import { whoisLookup } from "./whois/lookup.js";

/** Every lookup kind, checked exhaustive by the compiler: a new kind fails to build until it is listed. */
export const lookups: { [K in LookupKind]: Lookup<K> } = {
  ip: ipLookup,
  whois: whoisLookup,
  ssl: sslLookup,
  dns: dnsRecordsLookup,
  icp: icpLookup,
  reputation: reputationLookup,
};

/**
 * Validates `input` with the kind's schema and runs the lookup. Rejects with a LookupError: `invalid_input`
 * (an unknown kind, or input the schema refuses: `issues` lists each field path), or the lookup's own codes.
 */
export async function runLookup<K extends LookupKind>(
  kind: K,
  input: unknown,
  ctx: LookupContext,
): Promise<LookupResultByKind[K]> {
  const parsed = parseLookupInput(kind, input);
  return lookups[kind].run(parsed, ctx);
}

/**
 * The input as the kind's schema parses it (defaults applied, names normalised), without running anything:
 * callers that count or cache a lookup do it on the normalised input. Throws `invalid_input` as `runLookup`.
 */
export function parseLookupInput<K extends LookupKind>(kind: K, input: unknown): LookupInputByKind[K] {
  // Own keys only: a caller passing an unchecked string must not reach `toString` and the like.
  const lookup: Lookup<K> | undefined = Object.hasOwn(lookups, kind) ? lookups[kind] : undefined;
  if (!lookup) throw new LookupError("invalid_input", `unknown lookup kind ${String(kind)}`);
  const parsed = lookup.inputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join(".");
    // One issue per unknown field, named by its path, as the API's `unknown_field` details are.
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: "unknown field" }));
    }
    return [{ path, message: issue.message }];
  });
  const first = issues[0];
  const summary = first ? `${first.path || "input"}: ${first.message}` : "invalid input";
  throw new LookupError("invalid_input", summary, issues);
}
