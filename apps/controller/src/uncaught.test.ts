import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { UNCAUGHT_EXIT_CODE, uncaughtHandler } from "./uncaught.js";

function capture() {
  const lines: { level: number; msg: string; kind?: string }[] = [];
  const log = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

describe("uncaught errors in the controller", () => {
  it("are logged, counted and survived, until too many come at once", async () => {
    const { log, lines } = capture();
    const registry = new Registry();
    const exits: number[] = [];
    let clock = 0;
    const handle = uncaughtHandler({
      log,
      registry,
      limit: 3,
      windowMs: 1000,
      exit: (c) => exits.push(c),
      now: () => clock,
    });
    handle(new Error("socket callback threw"), "uncaughtException");
    handle(new Error("nobody awaited"), "unhandledRejection");
    expect(exits).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual([
      "uncaught error (uncaughtException) contained: the service goes on; this is a bug",
      "uncaught error (unhandledRejection) contained: the service goes on; this is a bug",
    ]);
    const text = await registry.metrics();
    expect(text).toContain('vantage_uncaught_errors_total{kind="uncaughtException"} 1');
    expect(text).toContain('vantage_uncaught_errors_total{kind="unhandledRejection"} 1');
    // Spread out, any number is survived; four within the window end the process.
    clock = 5000;
    handle(new Error("a"), "uncaughtException");
    handle(new Error("b"), "uncaughtException");
    handle(new Error("c"), "uncaughtException");
    expect(exits).toEqual([]);
    handle(new Error("d"), "uncaughtException");
    expect(exits).toEqual([UNCAUGHT_EXIT_CODE]);
    expect(lines.at(-1)?.msg).toBe(`4 uncaught errors within 1 s: exiting with code ${UNCAUGHT_EXIT_CODE}`);
  });

  it("installed on a process, an error thrown from a socket callback does not end it", () => {
    // A child process: the handler on the real process events, an error thrown inside a timer (as a socket
    // callback's would be), and the process still running its next step.
    const script = `
      import { pino } from "pino";
      import { Registry } from "prom-client";
      import { installUncaughtHandler } from ${JSON.stringify(fileURLToPath(new URL("./uncaught.ts", import.meta.url)))};
      installUncaughtHandler({ log: pino({ level: "silent" }), registry: new Registry() });
      setTimeout(() => { throw new Error("thrown from a callback"); }, 1);
      Promise.reject(new Error("rejected, never awaited"));
      setTimeout(() => { process.stdout.write("still here\\n"); }, 50);
    `;
    const out = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(out.stderr).toBe("");
    expect(out.stdout).toBe("still here\n");
    expect(out.status).toBe(0);
  });
});
