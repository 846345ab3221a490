import { afterAll, beforeAll } from "vitest";
import { type Lab, type LabOptions, startLab } from "../lab.js";
import { type ProbeRunner, startProbeRunner } from "./probe-runner.js";

export interface LabFixture {
  readonly lab: Lab;
  /** The probe runner of a client namespace, started on first use and stopped with the lab. */
  runner(client: string): Promise<ProbeRunner>;
}

/**
 * One lab per test file (files run in parallel; each lab has its own namespace prefix), built before the
 * first test and destroyed after the last, whatever the outcome. No root or no `ip netns` fails the file
 * with a message naming what is missing.
 */
export function useLab(opts: LabOptions = {}): LabFixture {
  let lab: Lab | undefined;
  const runners = new Map<string, Promise<ProbeRunner>>();
  beforeAll(async () => {
    lab = await startLab(opts);
  });
  afterAll(async () => {
    for (const r of runners.values()) (await r.catch(() => null))?.stop();
    await lab?.destroy();
  });
  return {
    get lab(): Lab {
      if (!lab) throw new Error("the lab is not up (beforeAll failed)");
      return lab;
    },
    runner(client) {
      let r = runners.get(client);
      if (!r) {
        r = startProbeRunner(this.lab, client);
        runners.set(client, r);
      }
      return r;
    },
  };
}
