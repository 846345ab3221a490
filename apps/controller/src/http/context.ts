import type { Logger } from "pino";

/** Credential kinds the API accepts; filled in by the accounts module's auth middleware. */
export type CredentialKind = "jwt" | "api_key" | "pat" | "mcp";
export type Scope = "read" | "write";

export interface Principal {
  userId: string;
  kind: CredentialKind;
  credentialId: string;
  scopes: readonly Scope[];
  /** The account's plan when the credential was checked (`free`, `pro`, `business`; cached ≤ 10 s). */
  plan: string;
}

export interface AppVariables {
  requestId: string;
  log: Logger;
  principal: Principal | undefined;
  clientIp: string;
}

export interface AppEnv {
  Variables: AppVariables;
}
