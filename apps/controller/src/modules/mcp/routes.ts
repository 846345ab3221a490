import { createRoute, z } from "@hono/zod-openapi";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import type { Logger } from "pino";
import type { Authenticator } from "../../http/authenticator.js";
import { type AppEnv, logOf, type Principal, requestIdOf } from "../../http/context.js";
import { errorResponses } from "../../http/envelope.js";
import { ApiError, type ErrorCode, errorBody, errorCodes } from "../../http/errors.js";
import { type Router, refuseUnknownQuery } from "../../http/router.js";
import { type ApiForm, authSecurity } from "../../http/security.js";
import type { McpServices, ToolContext } from "./context.js";
import { registerProbeTools } from "./probe-tools.js";
import { registerReadTools } from "./read-tools.js";
import { registerShareTools } from "./share-tools.js";

export const MCP_PATH = "/v1/mcp";
const SERVER_INFO = { name: "vantage", version: "1.0.0" };

const jsonRpc = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("JsonRpcMessage", { description: "A JSON-RPC 2.0 message of the Model Context Protocol" });

const mcpRoute = (form: ApiForm) =>
  createRoute({
    method: "post",
    path: MCP_PATH,
    tags: ["mcp"],
    summary: "Model Context Protocol entry point (Streamable HTTP, stateless)",
    description:
      "For MCP clients (AI assistants): JSON-RPC messages (`initialize`, `tools/list`, `tools/call`); send " +
      "`Accept: application/json, text/event-stream`. Tools: probe_http, probe_ping, probe_dns, probe_tcp, " +
      "probe_traceroute, probe_mtr, list_nodes, lookup_ip, lookup_whois, lookup_ssl, lookup_dns, lookup_icp, " +
      "ip_reputation, list_monitors, get_monitor, list_tasks, share_task, revoke_share, export_task, with " +
      "the same validation, limits, quotas and ownership rules as the routes, " +
      "charged to the caller's account. Credentials are required and need the `write` scope" +
      (form === "a" ? "; Form A also takes MCP tokens (`vantage_mcp_…`), which work nowhere else." : ".") +
      " Stateless: no session, so GET and DELETE answer 405. See docs/mcp.md.",
    security: authSecurity(form),
    request: { body: { required: true, content: { "application/json": { schema: jsonRpc } } } },
    responses: {
      200: {
        description: "The JSON-RPC response (a tool error is a result with `isError: true`)",
        content: { "application/json": { schema: jsonRpc } },
      },
      202: { description: "A notification or response from the client was accepted" },
      ...errorResponses(400, 401, 403, 413, 415),
    },
  });

interface Sdk {
  McpServer: typeof McpServer;
  Transport: typeof WebStandardStreamableHTTPServerTransport;
}
let sdk: Promise<Sdk> | undefined;

/**
 * The MCP SDK (with ajv and its JSON Schema tooling) is loaded at the first `/v1/mcp` request, not when
 * the controller starts: most controllers never serve one, and loading it is start-up CPU every process
 * would pay. A failed load is tried again by the next request.
 */
function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/mcp.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
  ]).then(
    ([server, transport]) => ({
      McpServer: server.McpServer,
      Transport: transport.WebStandardStreamableHTTPServerTransport,
    }),
    (err: unknown) => {
      sdk = undefined;
      throw err;
    },
  );
  return sdk;
}

/** One MCP server with every tool, acting for `ctx.principal`: built per request (stateless transport). */
export async function buildMcpServer(ctx: ToolContext): Promise<McpServer> {
  const { McpServer } = await loadSdk();
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "Vantage network diagnostics: probes (http, ping, dns, tcp, traceroute, mtr) from distributed nodes, IP/WHOIS/" +
      "TLS/DNS/ICP lookups, IP reputation, the node list and your monitors; the list of your probe tasks, " +
      "their share links and exports. Probes and lookups count against your account's quotas.",
  });
  registerProbeTools(server, ctx);
  registerReadTools(server, ctx);
  registerShareTools(server, ctx);
  return server;
}

/**
 * The caller at `/v1/mcp`: the form's credentials (Form A: `Authorization: Bearer` with an MCP token, API
 * key, personal access token or login session; Form B: its API keys or a session, also as `X-API-Key`),
 * required (401 without), with the `write` scope as every POST needs (tool calls spend the account's
 * quotas), so a read-only key is refused here as on every other write route.
 */
async function mcpPrincipal(c: Context<AppEnv>, authenticator: Authenticator): Promise<Principal> {
  const principal = await authenticator.authenticate(
    {
      authorization: c.req.header("authorization"),
      apiKey: authenticator.acceptsApiKeyHeader ? c.req.header("x-api-key") : undefined,
    },
    { mcp: true },
  );
  if (!principal.scopes.includes("write")) {
    throw new ApiError(
      "insufficient_scope",
      'this credential lacks the "write" scope',
      { required_scope: "write", granted_scopes: principal.scopes },
      { "WWW-Authenticate": 'Bearer error="insufficient_scope", scope="write"' },
    );
  }
  return principal;
}

/**
 * `POST /v1/mcp`: MCP's Streamable HTTP transport in stateless mode. Every POST carries its own
 * credentials and is served by a fresh server and transport that end with the response (JSON, not SSE):
 * no session lives in this process, so any controller behind a load balancer answers any request. Without
 * sessions there is no server-to-client stream to open (GET) and nothing to end (DELETE): both answer 405
 * with `Allow: POST` (the router's answer for a known path), which the transport allows and clients expect.
 */
/** The entry point takes no query parameters. */
const noQuery: ReadonlySet<string> = new Set();

export function registerMcpRoute(
  app: Router,
  opts: {
    form: ApiForm;
    publicUrl: string | undefined;
    log: Logger;
    authenticator: Authenticator;
    services: McpServices;
  },
): void {
  // Documented, not validated by the router: the body is a JSON-RPC message the MCP transport checks and
  // answers in JSON-RPC's own terms.
  app.openAPIRegistry.registerPath(mcpRoute(opts.form));
  app.post(MCP_PATH, async (c) => {
    const principal = await mcpPrincipal(c, opts.authenticator);
    c.set("principal", principal);
    refuseUnknownQuery(c.req.url, noQuery);
    const server = await buildMcpServer({
      ...opts.services,
      form: opts.form,
      log: logOf(c) ?? opts.log,
      principal,
      caller: {
        kind: "account",
        userId: principal.userId,
        plan: principal.plan,
        credentialId: principal.credentialId,
      },
      http: c,
      publicUrl: opts.publicUrl,
    });
    // No `sessionIdGenerator`: stateless mode.
    const transport = new (await loadSdk()).Transport({ enableJsonResponse: true });
    try {
      await server.connect(transport);
      // The body guard has read and parsed the body already (size, depth, malformed JSON: 4xx before this).
      const parsedBody: unknown = await c.req.json().catch(() => undefined);
      return enveloped(c, await transport.handleRequest(c.req.raw, { parsedBody }));
    } finally {
      await server.close();
    }
  });
}

/** The API's code for an HTTP status the MCP transport answers with. */
const codeOfStatus: Record<number, ErrorCode> = {
  400: "malformed_request",
  404: "not_found",
  405: "method_not_allowed",
  406: "not_acceptable",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/**
 * The transport's HTTP-level refusals (a client that does not accept JSON and SSE, a body that is no
 * JSON-RPC message) come as JSON-RPC error bodies; here they travel in the API's error envelope like every
 * other 4xx, with the JSON-RPC error in `details`. MCP clients read only the status of a non-2xx answer;
 * JSON-RPC errors inside a 200 (unknown method, bad tool arguments) are the protocol's and stay as they are.
 */
async function enveloped(c: Context<AppEnv>, res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const text = await res.text();
  let rpc: { code?: unknown; message?: unknown } | undefined;
  try {
    rpc = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
  } catch {
    rpc = undefined;
  }
  const message = typeof rpc?.message === "string" ? rpc.message : `MCP transport answered ${res.status}`;
  const code = codeOfStatus[res.status];
  if (!code) {
    logOf(c)?.error({ status: res.status, body: text.slice(0, 500) }, "MCP transport failed");
    return c.json(
      errorBody("internal_error", "internal error; quote the request id when reporting it", requestIdOf(c)),
      500,
    );
  }
  const out = c.json(
    errorBody(code, message, requestIdOf(c), rpc ? { jsonrpc_error: rpc } : undefined),
    errorCodes[code],
  );
  const allow = res.headers.get("allow");
  if (allow) out.headers.set("Allow", allow);
  return out;
}
