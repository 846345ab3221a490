import type { IncomingMessage, ServerResponse } from "node:http";
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
  principal: Principal | undefined;
}

/** What the core (`http/core.ts`) knows of every request before the router sees it. */
export interface RequestState {
  /** The caller's well-formed `X-Request-Id`, else one made here; on every response. */
  readonly requestId: string;
  /** The socket's peer, or the client a trusted proxy names (`http/client-ip.ts`). */
  readonly clientIp: string;
  /** The logger with `request_id` bound, made when first used. */
  readonly log: Logger;
  /** The probe task the request created, for its access log line (`noteTaskId`). */
  taskId: string | undefined;
}

/**
 * The request's bindings (`c.env`): Node's request and response under @hono/node-server (absent under
 * `app.request` in tests), and the core's state of the request.
 */
export interface AppBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
  vantage?: RequestState;
}

export interface AppEnv {
  Variables: AppVariables;
  Bindings: AppBindings;
}

interface WithBindings {
  env: unknown;
}

/** The request's id (`X-Request-Id`): what responses, logs and error bodies quote. */
export function requestIdOf(c: WithBindings): string {
  return (c.env as AppBindings | undefined)?.vantage?.requestId ?? "unknown";
}

/** The caller's IP address, as rate limits and the IP lookup's default see it. */
export function clientIpOf(c: WithBindings): string {
  return (c.env as AppBindings | undefined)?.vantage?.clientIp ?? "unknown";
}

/** Puts the probe task a request created into its access log line (`task_id`). */
export function noteTaskId(c: WithBindings, taskId: string): void {
  const state = (c.env as AppBindings | undefined)?.vantage;
  if (state) state.taskId = taskId;
}

/** The request's logger (`request_id` bound); `fallback` outside a request the core has seen. */
export function logOf(c: WithBindings, fallback?: Logger): Logger | undefined {
  return (c.env as AppBindings | undefined)?.vantage?.log ?? fallback;
}
