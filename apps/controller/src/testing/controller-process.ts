import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appArgs, killWithOwner } from "@vantage/testing";

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

/** The child's JSON log lines (stdout), as they arrive; `waitFor` resolves at the first line that matches. */
export function logLines(child: ChildProcess) {
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    match: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }[] = [];
  let rest = "";
  child.stdout?.on("data", (d: Buffer) => {
    rest += d.toString();
    const parts = rest.split("\n");
    rest = parts.pop() ?? "";
    for (const text of parts) {
      if (!text.startsWith("{")) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const w of [...waiters]) {
        if (!w.match(line)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  return {
    lines,
    waitFor(match: (l: Record<string, unknown>) => boolean, timeoutMs = 30_000) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching log line in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
  };
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
