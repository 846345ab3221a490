import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { captureLog } from "@vantage/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";
import { createSecretBox, SecretKey } from "./secret-box.js";
import { resolveSecretKey } from "./secret-key.js";

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "vantage-secret-key-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("resolveSecretKey", () => {
  it("embedded mode: generates <data dir>/secret-key (mode 600) once, logs it, and reuses it", () => {
    const dir = join(dataDir(), "nested");
    const config = loadConfig({ VANTAGE_DATA_DIR: dir });
    const first = captureLog();
    const keys = resolveSecretKey(config, first.log);
    const file = join(dir, "secret-key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(readdirSync(dir)).toEqual(["secret-key"]); // no temporary file left
    expect(keys.previous).toEqual([]);
    expect(first.lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        file,
        key_id: keys.current.id,
        msg: expect.stringMatching(/generated/),
      }),
    );

    const second = captureLog();
    const again = resolveSecretKey(config, second.log);
    expect(again.current.id).toBe(keys.current.id);
    expect(second.lines).toEqual([]);
    // The same key: what one start sealed, the next start opens.
    const sealed = createSecretBox(keys).seal("s", "t:1");
    expect(createSecretBox(again).open(sealed, "t:1")).toBe("s");
  });

  it("distributed mode (DATABASE_URL) without VANTAGE_SECRET_KEY refuses to start (ConfigError → exit 2)", () => {
    const dir = dataDir();
    const config = loadConfig({ DATABASE_URL: "postgres://db/vantage", VANTAGE_DATA_DIR: dir });
    expect(() => resolveSecretKey(config, captureLog().log)).toThrow(ConfigError);
    expect(() => resolveSecretKey(config, captureLog().log)).toThrow(
      /VANTAGE_SECRET_KEY is unset.*openssl rand -base64 32/,
    );
    expect(existsSync(join(dir, "secret-key"))).toBe(false);
  });

  it("VANTAGE_SECRET_KEY and VANTAGE_SECRET_KEYS_PREVIOUS are used as given, no file written", () => {
    const dir = dataDir();
    const current = SecretKey.generate();
    const old = [SecretKey.generate(), SecretKey.generate()];
    const config = loadConfig({
      DATABASE_URL: "postgres://db/vantage",
      VANTAGE_DATA_DIR: dir,
      VANTAGE_SECRET_KEY: current.toBase64(),
      VANTAGE_SECRET_KEYS_PREVIOUS: old.map((k) => k.toBase64()).join(","),
    });
    const { log, lines } = captureLog();
    const keys = resolveSecretKey(config, log);
    expect(keys.current.id).toBe(current.id);
    expect(keys.previous.map((k) => k.id)).toEqual(old.map((k) => k.id));
    expect(existsSync(join(dir, "secret-key"))).toBe(false);
    expect(lines).toEqual([]);
  });

  it("warns when a generated key file is left out after VANTAGE_SECRET_KEY was set", () => {
    const dir = dataDir();
    const generated = resolveSecretKey(loadConfig({ VANTAGE_DATA_DIR: dir }), captureLog().log).current;
    const explicit = SecretKey.generate().toBase64();
    const left = captureLog();
    resolveSecretKey(loadConfig({ VANTAGE_DATA_DIR: dir, VANTAGE_SECRET_KEY: explicit }), left.log);
    expect(left.lines).toContainEqual(
      expect.objectContaining({ level: 40, key_id: generated.id, msg: expect.stringMatching(/PREVIOUS/) }),
    );
    const kept = captureLog();
    const keys = resolveSecretKey(
      loadConfig({
        VANTAGE_DATA_DIR: dir,
        VANTAGE_SECRET_KEY: explicit,
        VANTAGE_SECRET_KEYS_PREVIOUS: readFileSync(join(dir, "secret-key"), "utf8").trim(),
      }),
      kept.log,
    );
    expect(kept.lines).toEqual([]);
    expect(keys.previous.map((k) => k.id)).toEqual([generated.id]);
  });

  it("never replaces a damaged key file; an empty one (a crash while writing) is generated again", () => {
    const dir = dataDir();
    const file = join(dir, "secret-key");
    writeFileSync(file, "not a key\n", { mode: 0o600 });
    const config = loadConfig({ VANTAGE_DATA_DIR: dir });
    expect(() => resolveSecretKey(config, captureLog().log)).toThrow(ConfigError);
    expect(() => resolveSecretKey(config, captureLog().log)).toThrow(
      /secret-key holds no valid secret key.*delete it/,
    );
    expect(readFileSync(file, "utf8")).toBe("not a key\n");

    writeFileSync(file, "");
    const keys = resolveSecretKey(config, captureLog().log);
    expect(readFileSync(file, "utf8").trim()).toBe(keys.current.toBase64());
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("warns about a key file other users can read", () => {
    const dir = dataDir();
    const config = loadConfig({ VANTAGE_DATA_DIR: dir });
    resolveSecretKey(config, captureLog().log);
    chmodSync(join(dir, "secret-key"), 0o644);
    const { log, lines } = captureLog();
    resolveSecretKey(config, log);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringMatching(/chmod 600/) }),
    );
  });

  it("memory:// data (tests) gets a fresh key per process, written nowhere", () => {
    const config = loadConfig({ VANTAGE_DATA_DIR: "memory://" });
    const a = resolveSecretKey(config, captureLog().log);
    const b = resolveSecretKey(config, captureLog().log);
    expect(a.current.id).not.toBe(b.current.id);
  });
});
