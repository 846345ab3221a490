import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appArgs, killWithOwner, listeningOn, type logLines } from "@vantage/testing";

/** The controller as a child process (as `pnpm controller` runs it: appArgs), stdout and stderr piped. */
export function startController(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, appArgs("controller"), {
    env: { ...process.env, VANTAGE_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killWithOwner(child);
  return child;
}

/** Resolves when the child exits, with its code and everything it wrote to stderr. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stderr })));
}

/** The controller as a child process on a port it picks itself (`listeningOn`), at level info. */
export async function startListening(
  env: Record<string, string>,
  timeoutMs?: number,
): Promise<{ child: ChildProcess; url: string; port: number; log: ReturnType<typeof logLines> }> {
  const child = startController({ HOST: "127.0.0.1", VANTAGE_LOG_LEVEL: "info", ...env, PORT: "0" });
  return { child, ...(await listeningOn(child, timeoutMs === undefined ? {} : { timeoutMs })) };
}

/** TCP ports the process listens on, as `ss` reports them (the machine's view, not the process's word). */
export function listeningPorts(pid: number): number[] {
  const out = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" });
  // `LISTEN 0 511 127.0.0.1:8080 0.0.0.0:* users:(("node",pid=123,fd=20))`: the local address is field 4.
  return out
    .split("\n")
    .filter((l) => l.includes(`pid=${pid},`))
    .map((l) => l.trim().split(/\s+/)[3] ?? "")
    .map((local) => Number(local.slice(local.lastIndexOf(":") + 1)));
}

/** An nkey seed in a file of its own (mode 600), as `NATS_NKEY_SEED_FILE` takes it; `remove()` cleans up. */
export function seedFile(seed: string): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "vantage-seed-"));
  const path = join(dir, "controller.nk");
  writeFileSync(path, `${seed}\n`, { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
