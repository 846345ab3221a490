import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { ProbeJobSpec, ProbeOutcome, ProbeType } from "@vantage/probes";
import type { Lab } from "../lab.js";

/** A spec as a caller writes it: parameters with defaults may be left out (the runner applies them). */
export type ProbeSpecInput<T extends ProbeType> = {
  type: T;
  params: Partial<Extract<ProbeJobSpec, { type: T }>["params"]>;
};

/** A probe runner living in one client namespace; `run` sends one spec and awaits its outcome. */
export interface ProbeRunner {
  run<T extends ProbeType>(spec: ProbeSpecInput<T>): Promise<ProbeOutcome<T>>;
  stop(): void;
  /** Settles when the runner's process has exited (stopped, or died). */
  readonly exited: Promise<void>;
}

const script = new URL("./probe-runner-main.ts", import.meta.url).pathname;

export async function startProbeRunner(lab: Lab, client: string): Promise<ProbeRunner> {
  const child: ChildProcess = lab.spawn(client, process.execPath, ["--import", "tsx", script]);
  const waiting = new Map<number, (outcome: unknown) => void>();
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  let ready!: () => void;
  let failed!: (err: Error) => void;
  const started = new Promise<void>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const msg = JSON.parse(line) as { ready?: boolean; fatal?: string; id?: number; outcome?: unknown };
    if (msg.ready) ready();
    else if (msg.fatal) failed(new Error(`probe runner in ${lab.ns(client)}: ${msg.fatal}`));
    else if (msg.id !== undefined) waiting.get(msg.id)?.(msg.outcome);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", (code) => {
    const err = new Error(`probe runner in ${lab.ns(client)} exited with ${code}: ${stderr.trim()}`);
    failed(err);
  });
  await started;
  let next = 0;
  return {
    exited,
    run<T extends ProbeType>(spec: ProbeSpecInput<T>): Promise<ProbeOutcome<T>> {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, (outcome) => {
          waiting.delete(id);
          const thrown = (outcome as { thrown?: string }).thrown;
          if (thrown) reject(new Error(`runProbe threw: ${thrown}`));
          else resolve(outcome as ProbeOutcome<T>);
        });
        child.stdin?.write(`${JSON.stringify({ id, spec })}\n`);
      });
    },
    stop() {
      child.stdin?.end();
      child.kill("SIGTERM");
    },
  };
}
