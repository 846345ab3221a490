import { execFileSync, spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { selfSignedCert } from "../../../packages/probes/src/testing/tls-cert.js";
import { listen, type Run, useCliController } from "./testing/cli-controller.js";

/**
 * `vantage`'s probe and lookup commands against an embedded controller of each API form (the in-process
 * agent is the one node, `local`, country ZZ): run in this process (`runCli`, on captured streams), their
 * tables, JSON, errors and exit codes; and the built bundle (dist/vantage.mjs, as `npm i -g` installs it)
 * as a subprocess for what the process adds: its streams, exit codes and a terminal.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = join(root, "apps/cli/dist/vantage.mjs");

beforeAll(() => {
  execFileSync(process.execPath, [join(root, "apps/cli/build.mjs")], { stdio: "inherit" });
}, 60_000);

describe.each(["a", "b"] as const)("vantage against a Form %s controller", (form) => {
  const controller = useCliController(form);
  const { cli, env } = controller;
  let api: string;
  let openPort: number;
  let closedPort: number;
  beforeAll(() => {
    ({ api, openPort, closedPort } = controller);
  });

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
