import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../controller/src/testing/until.js";
import { listen, useCliController } from "./testing/cli-controller.js";

/**
 * `vantage tasks` against an embedded controller of each API form, run in this process (`runCli`, on
 * captured streams): the signed-in account's probe tasks (made with the CLI's own probe commands on the
 * in-process agent) as a table and as the API's JSON, filtered by type and paged; its usage errors, and
 * its answer signed out.
 */
describe.each(["a", "b"] as const)("vantage tasks against a Form %s controller", (form) => {
  const controller = useCliController(form);
  const { cli } = controller;
  let api: string;
  let closedPort: number;
  let web: Server;
  /** The account's three tasks, oldest first: tcp that connects, tcp refused, http. */
  let made: { task_id: string; type: string; target: string }[];
  let shareId: string;

  const request = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await controller.runtime.app.request(path, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as { data: Record<string, unknown> };
  };
  /** A new account with an API key, the CLI logged in with it; the key. */
  const signIn = async (prefix: string) => {
    const token = (
      await request("POST", "/v1/auth/register", undefined, {
        email: `${prefix}-${form}@example.com`,
        password: "correct horse battery",
      })
    ).data.access_token as string;
    const key = (await request("POST", "/v1/account/api-keys", token, { name: "cli" })).data.key as string;
    expect((await cli(["login", "--api", api, "--key", key])).code).toBe(0);
    return key;
  };
  const listed = async (args: string[] = []) => JSON.parse((await cli(["tasks", "--json", ...args])).stdout);

  beforeAll(async () => {
    ({ api, closedPort } = controller);
    web = createServer((_req, res) => res.end("ok"));
    const webPort = await listen(web);
    const key = await signIn("cli-tasks");
    made = [];
    for (const [args, code] of [
      [["tcp", "127.0.0.1", "--port", String(controller.openPort)], 0],
      [["tcp", "127.0.0.1", "--port", String(closedPort)], 1],
      [["http", `http://127.0.0.1:${webPort}/${"long-path/".repeat(6)}`], 0],
    ] as const) {
      const run = await cli([...args, "--json"]);
      expect(run.code, run.stderr).toBe(code);
      made.push(JSON.parse(run.stdout));
    }
    shareId = (await request("POST", `/v1/probe/tasks/${made[0]!.task_id}/share`, key)).data
      .share_id as string;
    // Form B writes a task just after its answer.
    await until("the three tasks listed", async () => (await listed()).total === 3, 5000);
  });
  afterAll(() => {
    web?.close();
  });

  it("a table of the account's tasks, newest first: created, type, target, status, ok/nodes, share, id", async () => {
    const run = await cli(["tasks"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^CREATED\s+TYPE\s+TARGET\s+STATUS\s+OK\/NODES\s+SHARE\s+TASK$/);
    const [tcpOk, tcpRefused, http] = made;
    const row = (t: { task_id: string; type: string }, target: string, ok: string, share: string) =>
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+${t.type}\\s+${target.replaceAll(".", "\\.")}\\s+done\\s+${ok}\\s+${share}\\s+${t.task_id}$`,
      );
    // A long URL is cut to 60 characters in the table.
    expect(http!.target.length).toBeGreaterThan(60);
    expect(lines[1]).toMatch(row(http!, `${http!.target.slice(0, 59)}…`, "1/1", "-"));
    expect(lines[2]).toMatch(row(tcpRefused!, tcpRefused!.target, "0/1", "-"));
    expect(lines[3]).toMatch(row(tcpOk!, tcpOk!.target, "1/1", shareId));
    expect(lines[2]!.indexOf("0/1")).toBe(lines[0]!.indexOf("OK/NODES")); // aligned under its header
    expect(lines.slice(4).join("\n")).toBe("\n1-3 of 3 tasks\n"); // one page: no hint
    expect(run.stdout).not.toContain(String.fromCharCode(27)); // no colours off a terminal
  });

  it("--json: the API's data, with the form's page size", async () => {
    const data = await listed();
    expect(data).toMatchObject({ total: 3, page: 1, ...(form === "a" ? { limit: 20 } : { per_page: 20 }) });
    expect(data.items.map((t: { task_id: string }) => t.task_id)).toEqual(
      made.map((t) => t.task_id).reverse(),
    );
    expect(data.items[0].target).toBe(made[2]!.target); // the long URL whole
    expect(data.items[2]).toEqual({
      task_id: made[0]!.task_id,
      type: "tcp",
      target: made[0]!.target,
      status: "done",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      finished_at: expect.stringMatching(/Z$/),
      nodes: 1,
      succeeded: 1,
      share_id: shareId,
    });
  });

  it("--type narrows the list; --per-page pages it, with a hint while more pages follow", async () => {
    const tcp = await cli(["tasks", "--type", "TCP"]);
    expect(tcp.code).toBe(0);
    const rows = tcp.stdout.split("\n").filter((l) => /^\d{4}-/.test(l));
    expect(rows.map((l) => l.split(/\s+/)[1])).toEqual(["tcp", "tcp"]);
    expect(tcp.stdout).toMatch(/^1-2 of 2 tasks$/m);
    expect((await listed(["--type", "http"])).items.map((t: { type: string }) => t.type)).toEqual(["http"]);
    expect((await cli(["tasks", "--type", "mtr"])).stdout).toBe("no mtr probe tasks\n");

    const first = await cli(["tasks", "--per-page", "2"]);
    expect(first.stdout.split("\n").filter((l) => /^\d{4}-/.test(l))).toHaveLength(2);
    expect(first.stdout).toMatch(/^1-2 of 3 tasks; more: vantage tasks --page 2 --per-page 2$/m);
    const second = await cli(["tasks", "--page", "2", "--per-page", "2"]);
    const last = second.stdout.split("\n").filter((l) => /^\d{4}-/.test(l));
    expect(last).toHaveLength(1);
    expect(last[0]).toContain(made[0]!.task_id);
    expect(second.stdout).toMatch(/^3-3 of 3 tasks$/m);
    const narrowed = await cli(["tasks", "--type", "tcp", "--per-page", "1"]);
    expect(narrowed.stdout).toMatch(/; more: vantage tasks --type tcp --page 2 --per-page 1$/m);
    expect((await cli(["tasks", "--page", "3", "--per-page", "2"])).stdout).toBe(
      "no probe tasks on page 3: 3 in all\n",
    );
    // The page size goes by the form's name (Form A `limit`, Form B `per_page`) and comes back so.
    expect(await listed(["--per-page", "2", "--page", "2"])).toMatchObject({
      total: 3,
      page: 2,
      items: [{ task_id: made[0]!.task_id }],
      ...(form === "a" ? { limit: 2 } : { per_page: 2 }),
    });
  });

  it("usage errors: exit 2 with a message, before any request", async () => {
    const away = ["--api", `http://127.0.0.1:${closedPort}`]; // a request would fail: cannot reach
    const cases: [string[], RegExp][] = [
      [["tasks", "--type", "icmp"], /--type is ping, http, dns, tcp, traceroute, mtr, not icmp/],
      [["tasks", "--per-page", "101"], /--per-page takes a whole number from 1 to 100/],
      [["tasks", "--page", "0"], /--page takes a whole number from 1 to/],
      [["tasks", "--limit", "5"], /Unknown option '--limit'/],
      [["tasks", "tcp"], /unexpected argument: tcp/],
    ];
    for (const [args, message] of cases) {
      const run = await cli([...args, ...away]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/`vantage tasks --help` for usage/);
    }
  });

  it("only the account's own tasks; signed out, the API's 401 (exit 1)", async () => {
    await signIn("cli-tasks-other");
    const other = await cli(["tasks"]);
    expect(other.code).toBe(0);
    expect(other.stdout).toBe("no probe tasks\n");
    expect((await cli(["logout"])).code).toBe(0);
    const anonymous = await cli(["tasks", "--api", api]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stdout).toBe("");
    expect(anonymous.stderr).toMatch(/^error: .+ \(unauthorized\)$/m);
  });
});
