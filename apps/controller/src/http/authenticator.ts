import type { Principal } from "./context.js";

/** The credential headers of a request, as sent (undefined: absent). */
export interface PresentedCredentials {
  authorization: string | undefined;
  apiKey: string | undefined;
}

/**
 * Turns request credentials into a principal, or throws 401 `unauthorized`. The HTTP layer knows only this
 * interface; the accounts module implements it, and the composition root creates exactly one per process,
 * so every route shares one credential cache and a revocation is seen by all of them at once.
 */
export interface Authenticator {
  /**
   * MCP tokens (Form A, `vantage_mcp_…`) are refused with 401 `mcp_token_not_accepted` unless
   * `opts.mcp` is set: only the MCP entry point sets it, so every other route refuses them by default.
   */
  authenticate(presented: PresentedCredentials, opts?: { mcp?: boolean }): Promise<Principal>;
  /** Whether the active form takes `X-API-Key` (Form B); Form A ignores that header like any other. */
  readonly acceptsApiKeyHeader: boolean;
}
