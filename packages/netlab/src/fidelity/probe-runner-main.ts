/**
 * Runs inside a client namespace (the probes open raw sockets, so they must run in the namespace's own
 * process). Reads one `{"id","spec"}` JSON object per stdin line, answers `{"id","outcome"}` per stdout
 * line, one probe at a time so a probe never competes with another for the path it measures.
 */
import { createInterface } from "node:readline";
import { type ProbeJobSpec, type ProbeOutcome, probeJobSpecSchema } from "@vantage/probes";

type RunProbe = (spec: ProbeJobSpec, ctx: { allowPrivate: boolean }) => Promise<ProbeOutcome>;

async function loadRunProbe(): Promise<RunProbe> {
  // Looked up at run time, and overridable (VANTAGE_NETLAB_PROBES = a module path) so another probe
  // implementation can be measured against the same references.
  const from = process.env.VANTAGE_NETLAB_PROBES ?? "@vantage/probes";
  const mod = (await import(from)) as { runProbe?: RunProbe };
  if (typeof mod.runProbe !== "function") throw new Error(`${from} does not export runProbe`);
  return mod.runProbe;
}

const runProbe = await loadRunProbe().catch((err: unknown) => {
  process.stdout.write(`${JSON.stringify({ fatal: String(err) })}\n`);
  process.exit(1);
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

let queue = Promise.resolve();
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { id, spec } = JSON.parse(line) as { id: number; spec: unknown };
  queue = queue.then(async () => {
    let outcome: unknown;
    try {
      // The same schema the agent applies: defaults filled, bad specs rejected before the probe runs.
      outcome = await runProbe(probeJobSpecSchema.parse(spec), { allowPrivate: true });
    } catch (err) {
      outcome = { thrown: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
    }
    process.stdout.write(`${JSON.stringify({ id, outcome })}\n`);
  });
  await queue;
}
