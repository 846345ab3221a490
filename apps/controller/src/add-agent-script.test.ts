import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseUsers } from "@vantage/nats-auth";
import { appArgs } from "@vantage/testing";
import { afterEach, describe, expect, it } from "vitest";

/** `pnpm agent:add` as an operator runs it: a real process writing seeds and the users file. */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function agentAdd(dir: string, ...args: string[]) {
  // In the suite, the bundle package.json's script runs (built by the global set-up); alone, the source.
  const res = spawnSync(process.execPath, [...appArgs("agent:add"), ...args, "--out-dir", dir], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (res.error) throw res.error;
  return res;
}

describe("scripts/add-agent.ts", () => {
  it("adds an agent (seed 0600, users entry, environment), removes it with its seed, and adds it again", () => {
    const dir = mkdtempSync(join(tmpdir(), "vantage-agent-add-"));
    dirs.push(dir);
    const seed = join(dir, "agent-fra-1.nk");
    const users = () => parseUsers(readFileSync(join(dir, "users.conf"), "utf8"));

    const added = agentAdd(dir, "fra-1", "--name", "Frankfurt 1", "--country", "DE");
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain("VANTAGE_NODE_ID=fra-1");
    // The printed block can be sourced by a shell as it is (systemd's EnvironmentFile reads it too).
    const envBlock = added.stdout.slice(added.stdout.indexOf("VANTAGE_NODE_ID="));
    writeFileSync(join(dir, "agent.env"), envBlock);
    const sourced = spawnSync(
      "sh",
      ["-c", 'set -a; . ./agent.env; printf "%s|%s" "$VANTAGE_NODE_NAME" "$VANTAGE_NODE_COUNTRY"'],
      {
        cwd: dir,
        encoding: "utf8",
      },
    );
    expect(sourced.stderr).toBe("");
    expect(sourced.stdout).toBe("Frankfurt 1|DE");
    expect(readFileSync(seed, "utf8")).toMatch(/^SU[A-Z2-7]+\n$/);
    expect(statSync(seed).mode & 0o777).toBe(0o600);
    expect(users().map((u) => u.key)).toEqual(["agent:fra-1"]);

    const again = agentAdd(dir, "fra-1");
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("--rotate");
    const seedBefore = readFileSync(seed, "utf8");
    const envAgain = agentAdd(dir, "fra-1", "--env-only", "--name", "Frankfurt 1", "--country", "DE");
    expect(envAgain.status, envAgain.stderr).toBe(0);
    expect(envAgain.stdout).toBe(envBlock);
    expect(readFileSync(seed, "utf8")).toBe(seedBefore);

    const removed = agentAdd(dir, "fra-1", "--remove");
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`deleted ${seed}`);
    expect(existsSync(seed)).toBe(false);
    expect(users()).toEqual([]);

    const readded = agentAdd(dir, "fra-1");
    expect(readded.status, readded.stderr).toBe(0);
    expect(users().map((u) => u.key)).toEqual(["agent:fra-1"]);

    const unknown = agentAdd(dir, "nyc-1", "--remove");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("nyc-1 has no entry");
  });
});
