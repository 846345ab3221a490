import type { ApiKeyKind } from "../../db/tables/accounts.js";
import type { ApiForm } from "../../http/security.js";

/**
 * Secret prefixes per form. Form A: application API keys `sk_live_…`, personal access tokens
 * `vantage_pat_…` and MCP tokens `vantage_mcp_…` (accepted only at `/v1/mcp`); Form B: API keys `vantage_live_…` (no personal access tokens). A deployment accepts only
 * its own form's prefixes.
 */
export const secretPrefixes: Record<ApiForm, Partial<Record<ApiKeyKind, string>>> = {
  a: { api_key: "sk_live_", pat: "vantage_pat_", mcp: "vantage_mcp_" },
  b: { api_key: "vantage_live_" },
};

export function secretPrefix(form: ApiForm, kind: ApiKeyKind): string {
  const p = secretPrefixes[form][kind];
  if (!p) throw new Error(`form ${form} has no ${kind} credentials`);
  return p;
}

/** Which kind of stored secret a presented token is, by prefix; undefined if it is none of this form's. */
export function kindOfSecret(form: ApiForm, token: string): ApiKeyKind | undefined {
  for (const [kind, prefix] of Object.entries(secretPrefixes[form])) {
    if (prefix && token.startsWith(prefix)) return kind as ApiKeyKind;
  }
  return undefined;
}
