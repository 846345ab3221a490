import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listNamespaces, sweepLabs } from "./cleanup.js";
import { expectedHops } from "./describe.js";
import { type Lab, repoRoot, startLab } from "./lab.js";
import { run, tool } from "./shell.js";
import { labAddresses, labNodes } from "./topology.js";

/** Starts hold-lab-main.ts in a child process and resolves with the child and its lab id. */
function holdLab(): Promise<{ pid: number; id: string; kill(sig: NodeJS.Signals): Promise<void> }> {
  const script = join(repoRoot, "packages/netlab/src/testing/hold-lab-main.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: repoRoot, stdio: "pipe" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.once("data", (d: Buffer) => {
      const { id } = JSON.parse(d.toString()) as { id: string };
      const kill = (sig: NodeJS.Signals): Promise<void> => {
        child.kill(sig);
        return exited;
      };
      resolve({ pid: child.pid!, id, kill });
    });
    child.once("exit", (code) => reject(new Error(`hold-lab exited with ${code}: ${err}`)));
  });
}

function leftovers(id: string): string[] {
  const ns = listNamespaces(`vl-${id}-`);
  const etc = labNodes.map((n) => `/etc/netns/vl-${id}-${n.name}`).filter(existsSync);
  return [...ns, ...etc];
}

describe("netlab lifecycle", () => {
  it("builds every node, gives each client its own path, and tears down to nothing", async () => {
    let lab: Lab | undefined;
    try {
      lab = await startLab({ services: false });
      expect(listNamespaces(`vl-${lab.id}-`).sort()).toEqual(labNodes.map((n) => lab!.ns(n.name)).sort());
      const paths = lab.clients.map((c) => expectedHops(c, labAddresses.web4, 4).join(" "));
      expect(new Set(paths).size).toBe(lab.clients.length);
      for (const client of lab.clients) {
        const r = await lab.exec(client, tool("ping"), ["-n", "-c", "1", "-W", "2", labAddresses.web6]);
        expect(r.code, `${client} → ${labAddresses.web6}: ${r.stdout}`).toBe(0);
      }
    } finally {
      await lab?.destroy();
    }
    expect(leftovers(lab!.id)).toEqual([]);
    expect(existsSync(lab!.dir)).toBe(false);
  });

  it("removes its lab when its owner is terminated by a signal", async () => {
    const held = await holdLab();
    expect(listNamespaces(`vl-${held.id}-`).length).toBe(labNodes.length);
    await held.kill("SIGTERM");
    expect(leftovers(held.id)).toEqual([]);
  });

  it("refuses to start without root, saying what is missing", async () => {
    const code = `import(${JSON.stringify(join(repoRoot, "packages/netlab/src/lab.ts"))})
      .then((m) => m.startLab()).then(() => console.log("started"), (e) => console.log(e.message))`;
    const r = await run(tool("runuser"), [
      "-u",
      "nobody",
      "--",
      process.execPath,
      "--import",
      "tsx",
      "-e",
      code,
    ]);
    expect(r.stdout).toMatch(/netlab cannot run, missing: root/);
  });

  it("sweeps the lab of an owner killed without a chance to clean up", async () => {
    const held = await holdLab();
    await held.kill("SIGKILL");
    expect(listNamespaces(`vl-${held.id}-`).length).toBe(labNodes.length);
    expect(sweepLabs()).toContain(held.id);
    expect(leftovers(held.id)).toEqual([]);
  });
});
