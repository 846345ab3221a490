import type { ChildProcess } from "node:child_process";

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

/**
 * Waits for a controller (ours) started with `PORT=0` at level info to say where it listens: its
 * `listening` line (or `controller running` when it serves no API: `serves: false`). Resolves with the URL
 * and the log's lines so far and to come; rejects when the process exits first or says nothing in
 * `timeoutMs`.
 *
 * The port is the controller's own pick: a port chosen by the test and freed for the controller to bind
 * could be taken by another file's server first (a controller on a taken port exits with EADDRINUSE, and a
 * wait for anything to listen there then meets the other server).
 */
export async function listeningOn(
  child: ChildProcess,
  opts: { serves?: boolean; timeoutMs?: number } = {},
): Promise<{ url: string; port: number; log: ReturnType<typeof logLines> }> {
  const log = logLines(child);
  const serves = opts.serves ?? true;
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`controller exited with ${code} at start-up`))),
  );
  exited.catch(() => {}); // the race below hears it; after a start, the exit is the caller's
  const started = await Promise.race([
    log.waitFor((l) => l.msg === (serves ? "listening" : "controller running"), opts.timeoutMs ?? 120_000),
    exited,
  ]);
  const url = typeof started.url === "string" ? started.url : "http://127.0.0.1:0";
  return { url, port: Number(new URL(url).port), log };
}
