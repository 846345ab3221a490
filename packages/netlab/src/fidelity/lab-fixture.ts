import { afterAll, beforeAll } from "vitest";
import { type Lab, type LabOptions, startLab } from "../lab.js";
import { type ProbeRunner, startProbeRunner } from "./probe-runner.js";

export interface LabFixture {
  readonly lab: Lab;
  /** The probe runner of a client namespace, started on first use and kept with the lab (SharedLab). */
  runner(client: string): Promise<ProbeRunner>;
}

/**
 * The lab a test process keeps for each set of options, shared by the files it runs one after the other
 * (the fidelity files run in one worker, file after file, in one module graph: vitest.config.ts), with its
 * probe runners: a build costs about 1.5–1.9 s of namespaces, links, firewalls and services, a runner 0.6 s,
 * and no file changes a lab it does not restore. Both are stopped once no file has used the lab for a few
 * seconds, or with the process (the lab's exit and signal hooks, lab.ts, remove the namespaces and what
 * runs in them); a later run sweeps a lab whose owner died before either.
 */
interface SharedLab {
  lab: Promise<Lab>;
  runners: Map<string, Promise<ProbeRunner>>;
  users: number;
  idle?: NodeJS.Timeout | undefined;
}
const shared = new Map<string, SharedLab>();
const IDLE_MS = 3_000;

async function acquireLab(
  opts: LabOptions,
  keep: boolean,
): Promise<{ lab: Lab; runners: Map<string, Promise<ProbeRunner>>; release(): Promise<void> }> {
  const key = JSON.stringify([opts.lossPercent ?? 10, opts.services ?? true]);
  let entry = shared.get(key);
  if (entry) {
    clearTimeout(entry.idle);
    entry.idle = undefined;
  } else {
    entry = { lab: startLab(opts), runners: new Map(), users: 0 };
    shared.set(key, entry);
    // A build that failed is not kept: the next file tries again (and fails with its own message).
    entry.lab.catch(() => shared.get(key) === entry && shared.delete(key));
  }
  entry.users++;
  const held = entry;
  const lab = await held.lab;
  let released = false;
  return {
    lab,
    runners: held.runners,
    async release() {
      if (released) return;
      released = true;
      held.users--;
      if (held.users > 0) return;
      const destroy = async () => {
        if (held.users > 0 || shared.get(key) !== held) return;
        shared.delete(key);
        for (const r of held.runners.values()) (await r.catch(() => null))?.stop();
        await lab.destroy();
      };
      if (!keep) return destroy();
      // What is left if this fails, the exit hook removes.
      held.idle = setTimeout(() => void destroy().catch(() => {}), IDLE_MS);
      held.idle.unref();
    },
  };
}

/**
 * A lab for the test file, ready before its first test (each set of options built once per test process,
 * with its runners: see SharedLab) and released after its last, whatever the outcome. `keep: false`
 * destroys it there and then: for a file whose worker goes on to files of another kind, which the lab's
 * synchronous teardown (up to 2 s with its services) should not interrupt. No root or no `ip netns` fails
 * the file with a message naming what is missing.
 */
export function useLab(opts: LabOptions = {}, { keep = true }: { keep?: boolean } = {}): LabFixture {
  let held: Awaited<ReturnType<typeof acquireLab>> | undefined;
  beforeAll(async () => {
    held = await acquireLab(opts, keep);
  });
  afterAll(() => held?.release());
  return {
    get lab(): Lab {
      if (!held) throw new Error("the lab is not up (beforeAll failed)");
      return held.lab;
    },
    runner(client) {
      const runners = held?.runners;
      if (!runners) throw new Error("the lab is not up (beforeAll failed)");
      let r = runners.get(client);
      if (!r) {
        r = startProbeRunner(this.lab, client);
        runners.set(client, r);
        // One that failed to start, or exited since, is started afresh by the next call.
        const drop = () => runners.get(client) === r && runners.delete(client);
        r.then((runner) => runner.exited.then(drop), drop);
      }
      return r;
    },
  };
}
