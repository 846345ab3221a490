import type { AppDeps, Module } from "../../deps.js";
import type { Authenticator } from "../../http/authenticator.js";
import type { Router } from "../../http/router.js";
import type { McpServices, ToolContext } from "./context.js";
import { buildMcpServer, MCP_PATH, registerMcpRoute } from "./routes.js";

export type { McpServices, ToolContext } from "./context.js";
export { MCP_PATH } from "./routes.js";

/** What MCP offers in-process: a server with every tool for one caller (for another transport, e.g. stdio). */
export interface McpService {
  readonly path: typeof MCP_PATH;
  server(ctx: ToolContext): ReturnType<typeof buildMcpServer>;
}

export type McpModule = Module<McpService>;

/**
 * MCP: the Model Context Protocol entry point at `/v1/mcp` (Streamable HTTP, stateless). Its tools call the
 * same services as the HTTP routes (probes, shares, lookups, nodes, monitors), so the same validation, limits and
 * quotas apply, charged to the calling account by the services themselves (they charge through plans).
 */
export function createMcp(
  deps: AppDeps,
  services: McpServices & { authenticator: Authenticator },
): McpModule {
  const { authenticator, ...tools } = services;
  return {
    service: { path: MCP_PATH, server: buildMcpServer },
    routes(app: Router) {
      registerMcpRoute(app, {
        form: deps.config.VANTAGE_API_FORM,
        publicUrl: deps.config.VANTAGE_PUBLIC_URL,
        log: deps.log,
        authenticator,
        services: tools,
      });
    },
  };
}
