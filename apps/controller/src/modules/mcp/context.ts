import type { Context } from "hono";
import type { Logger } from "pino";
import type { AppEnv, Principal } from "../../http/context.js";
import type { QuotaCaller } from "../../http/rate-limit/index.js";
import type { ApiForm } from "../../http/security.js";
import type { LookupsService } from "../lookups/index.js";
import type { MonitorCrudService } from "../monitors/index.js";
import type { NodesService } from "../nodes/index.js";
import type { ProbesService, SharesService } from "../probes/index.js";

/** The services the MCP tools call: the same ones the HTTP routes call. */
export interface McpServices {
  probes: ProbesService;
  lookups: LookupsService;
  nodes: NodesService;
  monitors: MonitorCrudService;
  shares: SharesService;
}

/** What one MCP request's tools act with: the services, and who is calling through which request. */
export interface ToolContext extends McpServices {
  form: ApiForm;
  log: Logger;
  principal: Principal;
  /** The account whose quotas pay (per credential and per account, as on the HTTP routes). */
  caller: Extract<QuotaCaller, { kind: "account" }>;
  /** The HTTP request carrying the MCP message (the client's address, for Form B's own-IP lookup). */
  http: Context<AppEnv>;
  /** VANTAGE_PUBLIC_URL: where share links point (else the request's own origin, as the share route). */
  publicUrl: string | undefined;
}
