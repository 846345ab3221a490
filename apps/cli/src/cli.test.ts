import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { createServer as createTlsServer } from "node:tls";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCert } from "../../../packages/probes/src/testing/tls-cert.js";
import { loadConfig } from "../../controller/src/config.js";
import { createLogger } from "../../controller/src/logger.js";
import { type Runtime, startRuntime } from "../../controller/src/runtime.js";
import { lendPgliteDb } from "../../controller/src/testing/pglite-pool.js";
import { until } from "../../controller/src/testing/until.js";
import { runCli } from "./run.js";

/**
 * `vantage` against an embedded controller of each API form (the in-process agent is the one node,
 * `local`, country ZZ): its commands run in this process (`runCli`, on captured streams), and the built
 * bundle (dist/vantage.mjs, as `npm i -g` installs it) as a subprocess for what the process adds: its
 * streams, exit codes and a terminal.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = join(root, "apps/cli/dist/vantage.mjs");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const listen = (server: Server) =>
  new Promise<number>((ok) =>
    server.listen(0, "127.0.0.1", () => ok((server.address() as { port: number }).port)),
  );

beforeAll(() => {
  execFileSync(process.execPath, [join(root, "apps/cli/build.mjs")], { stdio: "inherit" });
}, 60_000);

describe.each(["a", "b"] as const)("vantage against a Form %s controller", (form) => {
  let runtime: Runtime;
  let dataDir: string;
  let home: string;
  let api: string;
  const listener = createServer((s) => s.destroy());
  let openPort: number;
  let closedPort: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "vantage-cli-data-"));
    home = mkdtempSync(join(tmpdir(), "vantage-cli-home-"));
    runtime = await startRuntime(
      loadConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        VANTAGE_API_FORM: form,
        VANTAGE_DATA_DIR: dataDir,
        VANTAGE_LOG_LEVEL: "silent",
        VANTAGE_ACCESS_LOG: "false",
        VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
        VANTAGE_DNSBL_ZONES: "none",
      }),
      createLogger("silent"),
      { db: (await lendPgliteDb()).db },
    );
    api = runtime.url!;
    openPort = await listen(listener);
    const closed = createServer();
    closedPort = await listen(closed);
    await new Promise((r) => closed.close(r));
  }, 120_000);
  afterAll(async () => {
    listener.close();
    await runtime?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  /** The CLI with a clean environment: a temporary home and config directory, no VANTAGE_* variables. */
  const env = () => {
    const e: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "config") };
    for (const k of Object.keys(e)) if (k.startsWith("VANTAGE_") || k === "NO_COLOR") delete e[k];
    return e;
  };
  /** A command run in this process: its exit code and what it wrote, with `stdin` piped in. */
  const cli = async (args: string[], stdin = ""): Promise<Run> => {
    let stdout = "";
    let stderr = "";
    const code = await runCli(args, env(), {
      stdout: { write: (chunk) => (stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk)) },
      stderr: { write: (chunk) => (stderr += chunk) },
      stdin: Readable.from(stdin ? [stdin] : []),
    });
    return { code, stdout, stderr };
  };
  // The built command as a process. Asynchronous: the controller answers from this process's event loop.
  const bundle = (args: string[], stdin = "", file = process.execPath, pre = [bin]) =>
    new Promise<Run>((ok, fail) => {
      const child = spawn(file, [...pre, ...args], { env: env(), stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", fail);
      child.on("close", (code) => ok({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });
  const request = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await runtime.app.request(path, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as { data: Record<string, unknown> };
  };

  it("nodes: a table of the nodes, and with --json the API's data", async () => {
    const table = await cli(["nodes", "--api", api]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+COUNTRY\s+REGION\s+PROVIDER\s+STATUS\s+VERSION$/m);
    expect(table.stdout).toMatch(/^local\s+Local node\s+ZZ\s+local\s+local\s+online\s/m);
    const json = await cli(["nodes", "--json", "--api", api]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      items: [{ id: "local", country: "ZZ", status: "online" }],
    });
  });

  it("tcp to a loopback listener: one aligned line per node and a summary, exit 0", async () => {
    const run = await cli(["tcp", "127.0.0.1", "--port", String(openPort), "--api", api]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^NODE\s+COUNTRY\s+RESULT\s+LATENCY\s+CONNECT\s+NOTE$/);
    expect(lines[1]).toMatch(/^local\s+ZZ\s+ok\s+[\d.]+ ms\s+[\d.]+ ms\s+127\.0\.0\.1$/);
    expect(lines[1]!.indexOf("ok")).toBe(lines[0]!.indexOf("RESULT")); // aligned under its header
    expect(run.stdout).toMatch(/^1 node: 1 ok {2}task_\S+ \(done\)$/m);
    expect(run.stdout).not.toContain(String.fromCharCode(27)); // no colours, no cursor movement off a terminal
  });

  it("tcp --json: the finished task only", async () => {
    const run = await cli(["tcp", `127.0.0.1:${openPort}`, "--json", "--from", "local", "--api", api]);
    expect(run.code).toBe(0);
    const task = JSON.parse(run.stdout);
    expect(task).toMatchObject({ type: "tcp", target: `127.0.0.1:${openPort}`, status: "done" });
    expect(task.results).toEqual([
      expect.objectContaining({
        node_id: "local",
        success: true,
        port: openPort,
        connect_ms: expect.any(Number),
      }),
    ]);
  });

  it("tcp to a closed loopback port: the node's error code and message, exit 1", async () => {
    const run = await cli(["tcp", "127.0.0.1", "--port", String(closedPort), "--from", "ZZ", "--api", api]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^local\s+ZZ\s+connection_refused\s+-\s+-\s+connect ECONNREFUSED/m);
    expect(run.stdout).toMatch(/^1 node: 0 ok, 1 failed/m);
  });

  it("ssl takes domain:port and a pasted URL, as tcp takes host:port; a clash with --port is exit 2", async () => {
    const tls = createTlsServer(selfSignedCert(), (s) => s.end());
    const port = await listen(tls);
    try {
      for (const target of [`localhost:${port}`, `https://localhost:${port}/login`]) {
        const run = await cli(["ssl", target, "--json", "--api", api]);
        expect(run.stderr, target).toBe("");
        expect(JSON.parse(run.stdout)).toMatchObject({ domain: "localhost", port, grade: "T" });
      }
      const clash = await cli(["ssl", "localhost:444", "--port", "443", "--api", api]);
      expect(clash.code).toBe(2);
      expect(clash.stderr).toMatch(/names port 444 but --port says 443/);
    } finally {
      tls.close();
    }
  });

  it("ip 192.0.2.1: answered from the shipped data", async () => {
    const run = await cli(["ip", "192.0.2.1", "--api", api]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ip\s+192\.0\.2\.1$/m);
    expect(run.stdout).toMatch(/^reserved\s+true$/m);
    expect(run.stdout).toMatch(/^range\s+documentation$/m);
    const json = await cli(["ip", "192.0.2.1", "--json", "--api", api]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ip: "192.0.2.1",
      reserved: true,
      range: "documentation",
    });
  });

  it("API errors: the envelope's message and code on stderr, exit 1", async () => {
    const badIp = await cli(["ip", "not-an-ip", "--api", api]);
    expect(badIp.code).toBe(1);
    expect(badIp.stderr).toMatch(/^error: .*expected an IPv4 or IPv6 address \(validation_error\)$/m);
    const unknownNode = await cli(["ping", "127.0.0.1", "--from", "nosuchnode", "--api", api]);
    expect(unknownNode.code).toBe(1);
    expect(unknownNode.stderr).toMatch(/\(validation_error\)$/m);
  });

  it("usage errors: exit 2 with a message, before any request", async () => {
    const cases: [string[], RegExp][] = [
      [["frobnicate"], /unknown command: frobnicate/],
      [["ping", "--api", api], /missing <host>/],
      [["tcp", "127.0.0.1", "--api", api], /tcp needs a port/],
      [["ping", "127.0.0.1", "--count", "many"], /--count takes a whole number/],
      [["nodes", "--bogus"], /Unknown option '--bogus'/],
      [["nodes", "--form", "c"], /--form takes a or b/],
      [["ip", "1.2.3.4", "5.6.7.8"], /unexpected argument: 5\.6\.7\.8/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/--help` for usage/);
    }
  });

  it("login --key: checked, stored with mode 600, used by later commands; a bad key is refused", async () => {
    const token = (
      await request("POST", "/v1/auth/register", undefined, {
        email: `cli-${form}@example.com`,
        password: "correct horse battery",
      })
    ).data.access_token as string;
    const key = (await request("POST", "/v1/account/api-keys", token, { name: "cli" })).data.key as string;
    const probesUsed = async () => {
      const usage = (await request("GET", "/v1/account/usage", token)).data.usage as {
        family: string;
        units: number;
      }[];
      return usage.find((u) => u.family === "probes")!.units;
    };
    expect(await probesUsed()).toBe(0);

    const login = await cli(["login", "--api", api, "--key", key]);
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(
      `logged in to ${api} (Form ${form.toUpperCase()}) as cli-${form}@example.com`,
    );
    const path = join(home, "config", "vantage", "config.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ api, key, form });

    // No --api: the stored deployment and key; the probe counts against the account.
    const probe = await cli(["tcp", "127.0.0.1", "--port", String(openPort)]);
    expect(probe.code).toBe(0);
    await until("the probe counted for the account", async () => (await probesUsed()) === 1, 5000);

    const bad = await cli([
      "login",
      "--api",
      api,
      "--key",
      form === "a" ? "sk_live_nope" : "vantage_live_nope",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/\(unauthorized\)$/m);
    expect(JSON.parse(readFileSync(path, "utf8")).key).toBe(key); // the good key is kept

    const fromStdin = await cli(["login", "--api", api], `${key}\n`);
    expect(fromStdin.code).toBe(0);
    const logout = await cli(["logout"]);
    expect(logout.stdout).toContain("logged out");
    expect(() => statSync(path)).toThrow();
  });

  /** A new account, the CLI logged in with its key, and one hourly ping monitor of it named `name`. */
  async function signedInWithMonitor(prefix: string, name: string) {
    const token = (
      await request("POST", "/v1/auth/register", undefined, {
        email: `${prefix}-${form}@example.com`,
        password: "correct horse battery",
      })
    ).data.access_token as string;
    const key = (await request("POST", "/v1/account/api-keys", token, { name: "cli" })).data.key as string;
    expect((await cli(["login", "--api", api, "--key", key])).code).toBe(0);
    const body =
      form === "a"
        ? { name, type: "ping", target: "192.0.2.1", interval_s: 3600 }
        : { name, type: "ping", host: "192.0.2.1", interval: 3600 };
    const monitor = (await request("POST", "/v1/monitors", token, body)).data.id as string;
    return { token, monitor };
  }

  it("maintenance create/list/delete and export: a window made and read back, runs streamed as CSV", async () => {
    const { monitor } = await signedInWithMonitor("cli-mnt", "m");
    const created = await cli([
      "maintenance",
      "create",
      "--title",
      "Sunday patching",
      "--monitors",
      monitor,
      "--rrule",
      "FREQ=WEEKLY;BYDAY=SU",
      "--start",
      "2026-03-01T02:30",
      "--tz",
      "Europe/Berlin",
      "--minutes",
      "90",
    ]);
    expect(created.stderr).toBe("");
    const id = /^created (mnt_\S+)/.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    const listed = await cli(["maintenance", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("FREQ=WEEKLY;BYDAY=SU (Europe/Berlin)");
    const bad = await cli([
      "maintenance",
      "create",
      "--title",
      "x",
      "--all",
      "--rrule",
      "FREQ=YEARLY",
      "--start",
      "2026-01-01T00:00",
      "--tz",
      "UTC",
      "--minutes",
      "5",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /body\.recurrence\.rrule: FREQ must be DAILY, WEEKLY or MONTHLY \(validation_error\)/,
    );
    expect((await cli(["maintenance", "create", "--title", "x"])).code).toBe(2);
    expect((await cli(["maintenance", "delete", "--id", id!])).stdout).toContain(`deleted ${id}`);

    const seq = (
      await runtime.db.kysely
        .selectFrom("monitors")
        .select("seq")
        .where("id", "=", monitor)
        .executeTakeFirstOrThrow()
    ).seq;
    await runtime.db.kysely
      .insertInto("monitor_runs")
      .values([
        {
          monitor_seq: String(seq),
          slot: new Date("2026-11-28T00:00:00Z"),
          node_id: "local",
          success: true,
          latency_ms: 1.5,
          error_code: null,
          status_code: null,
        },
        {
          monitor_seq: String(seq),
          slot: new Date("2026-11-28T01:00:00Z"),
          node_id: "local",
          success: false,
          latency_ms: null,
          error_code: "timeout",
          status_code: null,
        },
      ])
      .execute();
    const csv = await cli(["export", monitor, "--format", "csv", "--from", "2026-11-27T00:00:00Z"]);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe(
      "slot,node_id,success,latency_ms,error_code,status_code\r\n" +
        "2026-11-28T00:00:00.000Z,local,true,1.5,,\r\n" +
        "2026-11-28T01:00:00.000Z,local,false,,timeout,\r\n",
    );
    expect((await cli(["logout"])).code).toBe(0);
  });

  it("status-pages create/list/incident/delete: a page over a monitor, an incident on its public page", async () => {
    const { token, monitor } = await signedInWithMonitor("cli-sp", "shop");
    const slug = `acme-${form}`;
    const created = await cli([
      "status-pages",
      "create",
      "--slug",
      slug,
      "--title",
      "Acme",
      "--monitors",
      monitor,
    ]);
    expect(created.stderr).toBe("");
    const id = /^created (spg_\S+): (\S+)$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect(created.stdout).toContain(`: ${api}/status/${slug}`);
    const page = await request("GET", `/v1/status-pages/${id}`, token);
    // The component is named as its monitor is.
    expect(page.data.components).toEqual([{ name: "shop", monitor_ids: [monitor] }]);
    const listed = await cli(["status-pages", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+SLUG\s+TITLE\s+COMPONENTS\s+URL$/m);
    expect(listed.stdout).toMatch(
      new RegExp(`^${id}\\s+${slug}\\s+Acme\\s+1\\s+${api}/status/${slug}$`, "m"),
    );

    // Refused by the API (exit 1, its message and code), or by the command line before any request (exit 2).
    const taken = await cli(["status-pages", "create", "--slug", slug, "--title", "Again"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/another page has this slug \(conflict\)$/m);
    const refused: [string[], RegExp][] = [
      [["status-pages", "create", "--title", "x"], /create needs --slug and --title/],
      [
        ["status-pages", "incident", "--id", id!, "--title", "x", "--message", "y", "--status", "fixed"],
        /--status is investigating, identified, monitoring, resolved, not fixed/,
      ],
    ];
    for (const [args, message] of refused) {
      const run = await cli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/`vantage status-pages --help` for usage/);
    }

    const opened = await cli([
      "status-pages",
      "incident",
      "--id",
      id!,
      "--title",
      "Checkout errors",
      "--status",
      "identified",
      "--message",
      "Payments fail for some cards.",
    ]);
    expect(opened.stderr).toBe("");
    expect(opened.stdout).toMatch(new RegExp(`^opened inc_\\S+ on ${id} \\(identified\\)$`, "m"));
    const shown = (await request("GET", `/status/${slug}/status.json`)).data.incidents as {
      title: string;
      status: string;
      updates: { message: string }[];
    }[];
    expect(shown.find((i) => i.title === "Checkout errors")).toMatchObject({
      status: "identified",
      updates: [{ message: "Payments fail for some cards." }],
    });

    expect((await cli(["status-pages", "delete", "--id", id!])).stdout).toContain(`deleted ${id}`);
    expect((await cli(["status-pages", "list"])).stdout).toBe("no status pages\n");
    expect((await cli(["logout"])).code).toBe(0);
  });

  it("the built bundle as a process: its output, exit codes 0, 1 and 2, and a key read from stdin", async () => {
    const version = await bundle(["--version"]);
    expect(version).toMatchObject({ code: 0, stderr: "" });
    expect(version.stdout).toMatch(/^vantage \d+\.\d+\.\d+\n$/);
    const ip = await bundle(["ip", "192.0.2.1", "--json", "--api", api]);
    expect(ip.code).toBe(0);
    expect(JSON.parse(ip.stdout)).toMatchObject({ ip: "192.0.2.1", range: "documentation" });
    const refused = await bundle(["ip", "not-an-ip", "--api", api]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(validation_error\)$/m);
    const usage = await bundle(["nodes", "--bogus"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/Unknown option '--bogus'[\s\S]*`vantage nodes --help` for usage/);
    // The key piped in is the one checked: a made-up one is refused by the API.
    const login = await bundle(
      ["login", "--api", api],
      `${form === "a" ? "sk_live_" : "vantage_live_"}nope\n`,
    );
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/\(unauthorized\)$/m);
  });

  it("on a terminal: a pending line per node, overwritten by its result as it arrives", async () => {
    const command = [process.execPath, bin, "ping", "127.0.0.1", "--count", "3", "--api", api].join(" ");
    const run = await bundle(["-qfec", command, "/dev/null"], "", "script", []);
    expect(run.code).toBe(0);
    const out = run.stdout.replaceAll(String.fromCharCode(27), "<ESC>"); // escapes, readable
    const pending = out.search(/local\s+ZZ\s+<ESC>\[33mpending/);
    const result = out.search(
      /<ESC>\[1A\r<ESC>\[2Klocal\s+ZZ\s+<ESC>\[32mok<ESC>\[0m\s+[\d.]+ ms\s+3\s+3\s+0%/,
    );
    expect(pending).toBeGreaterThan(0);
    expect(result).toBeGreaterThan(pending);
    expect(out).toMatch(/1 node: <ESC>\[32m1 ok/);
  });
});
