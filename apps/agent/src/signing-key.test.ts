import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson, verifyResultSignature } from "@vantage/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { loadOrCreateSigningKey } from "./signing-key.js";

describe("the embedded agent's signing key", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "vantage-key-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("is made once in the data dir (mode 0600) and the same key comes back on the next start", () => {
    const dir = tempDir();
    const file = join(dir, "sub", "agent-signing-key.pem");
    const first = loadOrCreateSigningKey(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain("BEGIN PRIVATE KEY");
    const again = loadOrCreateSigningKey(file);
    expect(again.key).toBe(first.key);
    const statement = canonicalJson({ v: 1, node_id: "local" });
    expect(verifyResultSignature(first.key, statement, again.sign(statement))).toBe(true);
  });

  it("tightens a copied-in key to 0600 and refuses a key that is not Ed25519", () => {
    const dir = tempDir();
    const file = join(dir, "k.pem");
    writeFileSync(file, "not a key\n");
    chmodSync(file, 0o644);
    expect(() => loadOrCreateSigningKey(file)).toThrow();
    const good = join(dir, "good.pem");
    loadOrCreateSigningKey(good);
    chmodSync(good, 0o644);
    loadOrCreateSigningKey(good);
    expect(statSync(good).mode & 0o777).toBe(0o600);
  });
});
