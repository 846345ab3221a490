import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../config.js";
import { createLogger } from "../../logger.js";
import { type Runtime, startRuntime } from "../../runtime.js";
import { lendPgliteDb } from "../../testing/pglite-pool.js";
import { planLimitsEnv } from "../../testing/plan-limits.js";

const TOOLS = [
  "probe_http",
  "probe_ping",
  "probe_dns",
  "probe_tcp",
  "probe_traceroute",
  "probe_mtr",
  "list_nodes",
  "lookup_ip",
  "lookup_whois",
  "lookup_ssl",
  "lookup_dns",
  "lookup_icp",
  "ip_reputation",
  "list_monitors",
  "get_monitor",
  "list_tasks",
  "share_task",
  "revoke_share",
  "export_task",
];

/**
 * `/v1/mcp` over real HTTP, driven by the SDK's own client, against an embedded controller (PGlite, the
 * in-process agent) in each form. Probe targets are a loopback TCP listener; the IP lookup asks for a
 * documentation address, answered from the local data. Nothing leaves the machine.
 */
describe.each(["a", "b"] as const)("MCP entry point, form %s", (form) => {
  let runtime: Runtime;
  let dir: string;
  let base: string;
  let listener: Server;
  let port: number;
  /** The credential MCP clients are given: an MCP token in Form A, an API key in Form B. */
  let credential: string;

  const api = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await runtime.app.request(path, {
      method,
      headers: { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: test reads of known JSON answers
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const register = async (tag: string) => {
    const email = `mcp-${tag}-${form}-${Date.now()}@example.com`;
    const reg = await api("POST", "/v1/auth/register", {}, { email, password: "correct horse battery" });
    return { authorization: `Bearer ${reg.body.data.access_token as string}` };
  };
  /** A new MCP credential of the form for a fresh account. */
  const mcpCredential = async (tag: string) => {
    const session = await register(tag);
    const path = form === "a" ? "/v1/account/mcp-tokens" : "/v1/account/api-keys";
    const created = await api("POST", path, session, { name: `mcp ${tag}` });
    expect(created.status).toBe(201);
    const data = created.body.data;
    return { secret: (data.token ?? data.key) as string, id: data.id as string, session };
  };
  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: "vantage-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp`), { requestInit: { headers } }),
    );
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  const tcpArgs = () => (form === "a" ? { target: `127.0.0.1:${port}` } : { host: "127.0.0.1", port });
  const postMcp = (headers: Record<string, string>) =>
    fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `vantage-mcp-${form}-`));
    listener = createServer((socket) => socket.on("error", () => {}).end());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as { port: number }).port;
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      VANTAGE_API_FORM: form,
      VANTAGE_DATA_DIR: dir,
      VANTAGE_LOG_LEVEL: "silent",
      VANTAGE_ACCESS_LOG: "false",
      VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      // One node-probe per hour per account: the second probe of an account is refused.
      VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { node_probes_per_hour: 1 } }),
    });
    runtime = await startRuntime(config, createLogger("silent"), { db: (await lendPgliteDb()).db });
    base = runtime.url as string;
    credential = (await mcpCredential("main")).secret;
  }, 60_000);
  afterAll(async () => {
    await runtime?.stop();
    await new Promise((resolve) => listener?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists every tool, each with an input schema", async () => {
    const client = await connect({ authorization: `Bearer ${credential}` });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    const tcp = tools.find((t) => t.name === "probe_tcp");
    expect(Object.keys(tcp?.inputSchema.properties ?? {})).toEqual(
      form === "a"
        ? ["target", "node_ids", "locations", "reuse", "callback_url", "params"]
        : ["target", "host", "port", "timeout", "nodes", "locations", "reuse"],
    );
    // One name per concept in every tool: `target`, `port`, `record_type`; the HTTP names as aliases.
    const props = (name: string) =>
      Object.keys(tools.find((t) => t.name === name)?.inputSchema.properties ?? {});
    expect(props("lookup_ssl")).toEqual(["target", "q", "port"]);
    expect(props("lookup_dns")).toEqual(["target", form === "a" ? "q" : "domain", "record_type", "type"]);
    expect(props("lookup_ip")).toEqual(["target", form === "a" ? "q" : "ip"]);
    expect(props("probe_dns")).toContain("target");
    expect(props("probe_dns")).toContain(form === "a" ? "params" : "record_type");
    await client.close();
  });

  it("arguments: target everywhere, a numeric port, the old names as aliases, never both", async () => {
    const client = await connect({ authorization: `Bearer ${credential}` });
    const ip = await call(client, "lookup_ip", { target: "192.0.2.1" });
    expect(ip.structuredContent).toMatchObject({ ip: "192.0.2.1", reserved: true });
    const both = await call(client, "lookup_ip", {
      target: "192.0.2.1",
      [form === "a" ? "q" : "ip"]: "192.0.2.2",
    });
    expect(both.isError).toBe(true);
    expect(JSON.parse(textOf(both)).error.details[0].path).toBe("query.target");

    // lookup_ssl takes a numeric port: only the bad domain is named, or the port out of range.
    const badHost = await call(client, "lookup_ssl", { target: "not a domain", port: 8443 });
    const badHostPaths = JSON.parse(textOf(badHost)).error.details.map((d: { path: string }) => d.path);
    expect(badHostPaths).toEqual(["query.target"]);
    const badPort = await call(client, "lookup_ssl", { target: "example.com", port: 70000 });
    expect(JSON.parse(textOf(badPort)).error.details[0].path).toBe("query.port");
    const badType = await call(client, "lookup_dns", { target: "example.com", record_type: "PTR" });
    expect(JSON.parse(textOf(badType)).error.details[0].path).toBe("query.record_type");
    const missing = await call(client, "lookup_whois", {});
    expect(JSON.parse(textOf(missing)).error.details[0].path).toBe("query.target");

    if (form === "b") {
      // Its own account: the main one's single probe an hour is for the other tests.
      const own = await connect({ authorization: `Bearer ${(await mcpCredential("args")).secret}` });
      const r = await call(own, "probe_tcp", { target: "127.0.0.1", port, nodes: [] });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect((r.structuredContent as { results: unknown[] }).results[0]).toMatchObject({
        success: true,
        port,
      });
      const bad = await call(own, "probe_tcp", { target: "bad host!", port });
      expect(JSON.parse(textOf(bad)).error.details[0].path).toBe("body.target");
      const none = await call(own, "probe_ping", {});
      expect(JSON.parse(textOf(none)).error.details[0].path).toBe("body.target");
      await own.close();
    }
    await client.close();
  });

  it("probe_tcp runs to completion on the embedded agent and returns the result entries", async () => {
    const client = await connect({ authorization: `Bearer ${credential}` });
    const r = await call(client, "probe_tcp", tcpArgs());
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as { task_id: string; results: Record<string, unknown>[] };
    expect(s.task_id).toMatch(/^task_/);
    expect(s.results).toHaveLength(1);
    expect(s.results[0]).toMatchObject({ success: true, port, resolved_ip: "127.0.0.1" });
    expect(textOf(r)).toMatch(/: ok, [\d.]+ ms/);
    await client.close();
  });

  it("share_task, export_task and revoke_share act on the caller's own tasks only", async () => {
    const own = await connect({ authorization: `Bearer ${(await mcpCredential("share")).secret}` });
    const probed = await call(own, "probe_tcp", tcpArgs());
    const taskId = (probed.structuredContent as { task_id: string }).task_id;

    const shared = await call(own, "share_task", { task_id: taskId });
    expect(shared.isError, textOf(shared)).toBeFalsy();
    const link = shared.structuredContent as { url: string; json_url: string; share_id: string };
    expect(link.url).toBe(`${base}/share/${link.share_id}`);
    const jsonPath = new URL(link.json_url).pathname;
    const open = await runtime.app.request(jsonPath);
    expect(open.status).toBe(200);
    expect(JSON.stringify(await open.json())).toContain(taskId);

    const exported = await call(own, "export_task", { task_id: taskId });
    expect(exported.structuredContent).toMatchObject({ format: "vantage-task/1", task: { task_id: taskId } });

    // Another account: as over HTTP, its tasks do not exist for this one.
    const other = await connect({ authorization: `Bearer ${credential}` });
    for (const tool of ["share_task", "revoke_share", "export_task"]) {
      const r = await call(other, tool, { task_id: taskId });
      expect(r.isError, tool).toBe(true);
      expect(JSON.parse(textOf(r)).error.code).toBe("not_found");
    }

    expect((await call(own, "revoke_share", { task_id: taskId })).isError).toBeFalsy();
    expect((await runtime.app.request(jsonPath)).status).toBe(404);
    const again = await call(own, "revoke_share", { task_id: taskId });
    expect(JSON.parse(textOf(again)).error.code).toBe("not_found");
    await other.close();
    await own.close();
  });

  it("lookup_ip of a documentation address is answered from the local data", async () => {
    const client = await connect({ authorization: `Bearer ${credential}` });
    const r = await call(client, "lookup_ip", form === "a" ? { q: "192.0.2.1" } : { ip: "192.0.2.1" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ ip: "192.0.2.1", reserved: true, cached: false });
    await client.close();
  });

  it("an invalid tool input is a tool error naming the field, and the session goes on", async () => {
    const client = await connect({ authorization: `Bearer ${credential}` });
    const bad =
      form === "a" ? { target: "127.0.0.1", params: { port: 70000 } } : { host: "127.0.0.1", port: 70000 };
    const r = await call(client, "probe_tcp", bad);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(form === "a" ? "params.port" : "port");
    const missing = await call(client, "get_monitor", { id: "mon_doesnotexist" });
    expect(missing.isError).toBe(true);
    expect(JSON.parse(textOf(missing))).toMatchObject({ error: { code: "not_found" } });
    const monitors = await call(client, "list_monitors", {});
    expect(monitors.structuredContent).toMatchObject({ items: [], total: 0, page: 1 });
    await client.close();
  });

  it("probes count against the account's quota: the second one is refused", async () => {
    const { secret } = await mcpCredential("quota");
    const client = await connect({ authorization: `Bearer ${secret}` });
    expect((await call(client, "probe_tcp", tcpArgs())).isError).toBeFalsy();
    const refused = await call(client, "probe_tcp", tcpArgs());
    expect(refused.isError).toBe(true);
    expect(JSON.parse(textOf(refused))).toMatchObject({ error: { code: "quota_exceeded" } });
    await client.close();
  });

  it("requires credentials (401); GET and DELETE are 405 (stateless: no stream, no session)", async () => {
    const anon = await postMcp({});
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await anon.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const auth = { authorization: `Bearer ${credential}` };
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${base}/v1/mcp`, { method, headers: auth });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("the transport's HTTP refusals come in the API's error envelope, the JSON-RPC error in details", async () => {
    const auth = { authorization: `Bearer ${credential}`, "content-type": "application/json" };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const jsonOnly = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: { ...auth, accept: "application/json" },
      body: ping,
    });
    expect(jsonOnly.status).toBe(406);
    const refused = (await jsonOnly.json()) as {
      error: { code: string; details: { jsonrpc_error: { code: number } } };
      request_id: string;
    };
    expect(refused.error.code).toBe("not_acceptable");
    expect(refused.error.details.jsonrpc_error.code).toBe(-32000);
    expect(refused.request_id).toBe(jsonOnly.headers.get("x-request-id"));
    const both = { ...auth, accept: "application/json, text/event-stream" };
    const notRpc = await fetch(`${base}/v1/mcp`, { method: "POST", headers: both, body: '"not a message"' });
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as { error: { code: string } }).error.code).toBe("malformed_request");
    // A protocol-level error (unknown method) stays JSON-RPC, in a 200, as MCP clients expect.
    const unknown = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: both,
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "no/such" }),
    });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });
  });

  if (form === "b") {
    it("takes a Form B API key as X-API-Key too; there is no MCP tokens route", async () => {
      const client = await connect({ "x-api-key": credential });
      expect((await client.listTools()).tools.length).toBe(TOOLS.length);
      await client.close();
      const session = await register("no-route");
      expect((await api("POST", "/v1/account/mcp-tokens", session, { name: "x" })).status).toBe(404);
      expect((await api("GET", "/v1/account/mcp-tokens", session)).status).toBe(404);
    });
  }

  if (form === "a") {
    it("an MCP token works only at /v1/mcp: elsewhere 401 mcp_token_not_accepted", async () => {
      const headers = { authorization: `Bearer ${credential}` };
      for (const path of ["/v1/account/profile", "/v1/monitors", "/v1/account/mcp-tokens"]) {
        const res = await api("GET", path, headers);
        expect(res.status, path).toBe(401);
        expect(res.body.error.code).toBe("mcp_token_not_accepted");
        expect(res.body.error.message).toContain("/v1/mcp");
      }
      // Public routes take credentials too: an MCP token there is refused the same way.
      const probe = await api("POST", "/v1/probe/tcp", headers, { target: `127.0.0.1:${port}` });
      expect(probe.body.error.code).toBe("mcp_token_not_accepted");
    });

    it("the other Form A credentials work at /v1/mcp too (session, personal access token)", async () => {
      const session = await register("other");
      const pat = await api("POST", "/v1/account/tokens", session, { name: "pat" });
      for (const authorization of [session.authorization, `Bearer ${pat.body.data.token as string}`]) {
        const client = await connect({ authorization });
        expect((await client.listTools()).tools.length).toBe(TOOLS.length);
        await client.close();
      }
    });

    it("tokens are listed without their secret; revoked and expired tokens are refused (401)", async () => {
      const revoked = await mcpCredential("revoked");
      const list = await api("GET", "/v1/account/mcp-tokens", revoked.session);
      expect(list.body.data).toMatchObject({ total: 1, tokens: [{ id: revoked.id }] });
      expect(list.body.data.tokens[0].token).toBeUndefined();
      expect(list.body.data.tokens[0].token_prefix).toMatch(/^vantage_mcp_/);
      expect(revoked.secret).toMatch(/^vantage_mcp_/);
      expect((await postMcp({ authorization: `Bearer ${revoked.secret}` })).status).toBe(200);
      const del = await api("DELETE", `/v1/account/mcp-tokens/${revoked.id}`, revoked.session);
      expect(del.status).toBe(200);
      const after = await postMcp({ authorization: `Bearer ${revoked.secret}` });
      expect(after.status).toBe(401);
      expect(((await after.json()) as { error: { code: string } }).error.code).toBe("unauthorized");

      const expired = await mcpCredential("expired");
      await sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${expired.id}`.execute(
        runtime.db.kysely,
      );
      const res = await postMcp({ authorization: `Bearer ${expired.secret}` });
      expect(res.status).toBe(401);
    });
  }
});
