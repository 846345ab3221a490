import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../config.js";
import { createLogger } from "../../logger.js";
import { type Runtime, startRuntime } from "../../runtime.js";
import { lendPgliteDb } from "../../testing/pglite-pool.js";
import { until } from "../../testing/until.js";

/**
 * The `list_tasks` tool over real HTTP, driven by the SDK's own client, against an embedded controller
 * (PGlite, the in-process agent) in each form: the caller's probe tasks as `GET /v1/probe/tasks` lists them,
 * filtered and paged by the form's names, and bad arguments as tool errors. Probe targets are loopback ports.
 */
describe.each(["a", "b"] as const)("MCP list_tasks, form %s", (form) => {
  let runtime: Runtime;
  let dir: string;
  let base: string;
  let listener: Server;
  let openPort: number;
  let closedPort: number;
  const size = form === "a" ? "limit" : "per_page";

  // biome-ignore lint/suspicious/noExplicitAny: test reads of known JSON answers
  const api = async (path: string, headers: Record<string, string>, body?: unknown): Promise<any> => {
    const res = await runtime.app.request(path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, ...((await res.json()) as object) };
  };
  /** A fresh account: its session (for the HTTP routes) and an MCP client with the form's MCP credential. */
  const account = async (tag: string) => {
    const email = `mcp-tasks-${tag}-${form}@example.com`;
    const reg = await api("/v1/auth/register", {}, { email, password: "correct horse battery" });
    const session = { authorization: `Bearer ${reg.data.access_token as string}` };
    const path = form === "a" ? "/v1/account/mcp-tokens" : "/v1/account/api-keys";
    const created = await api(path, session, { name: `mcp ${tag}` });
    const secret = (created.data.token ?? created.data.key) as string;
    const client = new Client({ name: "vantage-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    return { session, client };
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  const tcp = (port: number) =>
    form === "a" ? { target: `127.0.0.1:${port}` } : { target: "127.0.0.1", port };

  let owner: Awaited<ReturnType<typeof account>>;
  /** The owner's tasks, oldest first: a tcp connect that succeeds, one refused. */
  let made: string[];
  let shareId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `vantage-mcp-tasks-${form}-`));
    listener = createServer((socket) => socket.on("error", () => {}).end());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    openPort = (listener.address() as { port: number }).port;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      VANTAGE_API_FORM: form,
      VANTAGE_DATA_DIR: dir,
      VANTAGE_LOG_LEVEL: "silent",
      VANTAGE_ACCESS_LOG: "false",
      VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
    });
    runtime = await startRuntime(config, createLogger("silent"), { db: (await lendPgliteDb()).db });
    base = runtime.url as string;

    owner = await account("owner");
    made = [];
    for (const port of [openPort, closedPort]) {
      const r = await call(owner.client, "probe_tcp", tcp(port));
      expect(r.isError, textOf(r)).toBeFalsy();
      made.push((r.structuredContent as { task_id: string }).task_id);
    }
    const shared = await call(owner.client, "share_task", { task_id: made[0] });
    shareId = (shared.structuredContent as { share_id: string }).share_id;
    // Form B writes a task just after its answer.
    await until("both tasks listed", async () => {
      const r = await call(owner.client, "list_tasks");
      return (r.structuredContent as { total: number }).total === 2;
    });
  }, 60_000);
  afterAll(async () => {
    await owner?.client.close();
    await runtime?.stop();
    await new Promise((resolve) => listener?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("is listed read-only, with the form's paging names and the probe types", async () => {
    const { tools } = await owner.client.listTools();
    const tool = tools.find((t) => t.name === "list_tasks");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true });
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(["page", size, "type"]);
    expect(tool?.inputSchema.properties?.type).toMatchObject({
      enum: ["http", "ping", "dns", "tcp", "traceroute", "mtr"],
    });
  });

  it("answers the caller's tasks newest first, exactly as GET /v1/probe/tasks lists them", async () => {
    const r = await call(owner.client, "list_tasks");
    expect(r.isError, textOf(r)).toBeFalsy();
    const http = await api("/v1/probe/tasks", owner.session);
    expect(http.status).toBe(200);
    expect(r.structuredContent).toEqual(http.data);
    expect(r.structuredContent).toMatchObject({
      total: 2,
      page: 1,
      [size]: 20,
      items: [
        {
          task_id: made[1],
          type: "tcp",
          target: `127.0.0.1:${closedPort}`,
          status: "done",
          nodes: 1,
          succeeded: 0,
          share_id: null,
        },
        {
          task_id: made[0],
          type: "tcp",
          target: `127.0.0.1:${openPort}`,
          status: "done",
          nodes: 1,
          succeeded: 1,
          share_id: shareId,
        },
      ],
    });
    expect(textOf(r)).toContain(
      `${made[0]} tcp 127.0.0.1:${openPort}: done, 1/1 node(s) ok, shared as ${shareId}`,
    );

    // Another account's tasks are not the caller's.
    const other = await account("other");
    expect((await call(other.client, "list_tasks")).structuredContent).toEqual({
      items: [],
      total: 0,
      page: 1,
      [size]: 20,
    });
    await other.client.close();
  });

  it("type, page and the page size narrow it as the route's query does", async () => {
    const tcpOnly = await call(owner.client, "list_tasks", { type: "tcp" });
    expect((tcpOnly.structuredContent as { total: number }).total).toBe(2);
    const none = await call(owner.client, "list_tasks", { type: "http" });
    expect(none.structuredContent).toMatchObject({ items: [], total: 0 });
    const second = await call(owner.client, "list_tasks", { page: 2, [size]: 1 });
    const http = await api(`/v1/probe/tasks?page=2&${size}=1`, owner.session);
    expect(second.structuredContent).toEqual(http.data);
    expect(second.structuredContent).toMatchObject({
      total: 2,
      page: 2,
      [size]: 1,
      items: [{ task_id: made[0] }],
    });
  });

  it("a bad argument is the tool error every tool gives for one, and the session goes on", async () => {
    const inputError = /^MCP error -32602: Input validation error: Invalid arguments for tool (\w+):/;
    const badType = await call(owner.client, "list_tasks", { type: "icmp" });
    expect(badType.isError).toBe(true);
    expect(textOf(badType)).toMatch(inputError);
    expect(textOf(badType)).toMatch(/tool list_tasks: .*expected one of "http"\|"ping"\|.*"mtr" at type$/);
    // As list_monitors answers a page size out of range.
    const monitors = await call(owner.client, "list_monitors", { [size]: 101 });
    const tasks = await call(owner.client, "list_tasks", { [size]: 101 });
    expect(monitors.isError).toBe(true);
    expect(tasks.isError).toBe(true);
    expect(textOf(monitors)).toMatch(inputError);
    expect(textOf(tasks)).toMatch(inputError);
    expect(textOf(tasks)).toMatch(new RegExp(`tool list_tasks: .* at ${size}$`));
    // The other form's page size name is refused, not ignored.
    const otherName = await call(owner.client, "list_tasks", { [form === "a" ? "per_page" : "limit"]: 1 });
    expect(otherName.isError).toBe(true);
    expect(textOf(otherName)).toMatch(inputError);
    expect(textOf(otherName)).toMatch(form === "a" ? /"per_page"/ : /"limit"/);
    expect((await call(owner.client, "list_tasks", { type: "tcp" })).isError).toBeFalsy();
  });
});
