import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { describe, expect, it } from "vitest";
import { appArgs, runsBuilt } from "./app-entry.js";

describe("appArgs: how the suite starts our processes", () => {
  it("in the suite, the bundles the global set-up built, with the run scripts' flags and absolute paths", () => {
    expect(runsBuilt()).toBe(true);
    const agent = appArgs("agent");
    expect(agent).toEqual(expect.arrayContaining(["--optimize-for-size", "--require"]));
    const files = agent.filter((a) => !a.startsWith("-"));
    expect(files.map((f) => f.split("/").slice(-3).join("/"))).toEqual([
      "agent/dist/threadpool.cjs",
      "agent/dist/vantage-agent.mjs",
    ]);
    for (const app of ["controller", "secrets:rotate", "account:plan"] as const) {
      const entry = appArgs(app).at(-1)!;
      expect(isAbsolute(entry) && entry.endsWith(".mjs") && existsSync(entry), entry).toBe(true);
    }
    for (const f of files) expect(existsSync(f), f).toBe(true);
  });

  it("preload: false leaves out the agent's thread-pool preload and nothing else", () => {
    const all = appArgs("agent");
    const bare = appArgs("agent", { preload: false });
    expect(bare).not.toContain("--require");
    expect(bare).toHaveLength(all.length - 2);
    expect(bare.at(-1)).toBe(all.at(-1));
  });
});
