import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll } from "vitest";
import { loadConfig } from "../../../controller/src/config.js";
import { createLogger } from "../../../controller/src/logger.js";
import { type Runtime, startRuntime } from "../../../controller/src/runtime.js";
import { lendPgliteDb } from "../../../controller/src/testing/pglite-pool.js";
import { runCli } from "../run.js";

/** What the CLI's test files share: an embedded controller of one API form and the CLI run against it. */

/** A command's exit code and what it wrote. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Listens on a free loopback port; returns the port. */
export const listen = (server: Server) =>
  new Promise<number>((ok) =>
    server.listen(0, "127.0.0.1", () => ok((server.address() as { port: number }).port)),
  );

export interface CliController {
  /** The embedded controller (the in-process agent is the one node, `local`, country ZZ). */
  runtime: Runtime;
  /** Its URL, for `--api`. */
  api: string;
  /** The CLI's temporary home: its config is in `<home>/config/vantage`. */
  home: string;
  /** A loopback port that accepts connections (and closes them), and one that refuses them. */
  openPort: number;
  closedPort: number;
  /** The CLI's environment: the temporary home and config directory, no VANTAGE_* variables. */
  env(): NodeJS.ProcessEnv;
  /** A command run in this process (`runCli`, on captured streams), with `stdin` piped in. */
  cli(args: string[], stdin?: string): Promise<Run>;
}

/**
 * For a `describe` block: an embedded controller of `form` started before its tests and stopped after
 * them, on a lent PGlite database, with the CLI's temporary home. Read the fields inside hooks and tests
 * only; `env` and `cli` may be taken out at once.
 */
export function useCliController(form: "a" | "b"): CliController {
  let dataDir: string;
  const listener = createServer((s) => s.destroy());

  const env = () => {
    const e: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: controller.home,
      XDG_CONFIG_HOME: join(controller.home, "config"),
    };
    for (const k of Object.keys(e)) if (k.startsWith("VANTAGE_") || k === "NO_COLOR") delete e[k];
    return e;
  };
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
  const controller: CliController = {
    runtime: undefined as unknown as Runtime,
    api: "",
    home: "",
    openPort: 0,
    closedPort: 0,
    env,
    cli,
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "vantage-cli-data-"));
    controller.home = mkdtempSync(join(tmpdir(), "vantage-cli-home-"));
    controller.runtime = await startRuntime(
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
    controller.api = controller.runtime.url!;
    controller.openPort = await listen(listener);
    const closed = createServer();
    controller.closedPort = await listen(closed);
    await new Promise((r) => closed.close(r));
  }, 120_000);
  afterAll(async () => {
    listener.close();
    await controller.runtime?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (controller.home) rmSync(controller.home, { recursive: true, force: true });
  });

  return controller;
}
