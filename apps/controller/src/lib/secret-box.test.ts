import { createHash, randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { createSecretBox, parseSecretKey, SecretBoxError, SecretKey } from "./secret-box.js";

const oldKey = SecretKey.generate();
const newKey = SecretKey.generate();
const box = createSecretBox({ current: newKey, previous: [] });
const aad = "alert_channels:ach_01";

/** The sealed value with one character of part `index` changed to another valid base64url/hex one. */
function tamper(sealed: string, index: number, at = 0): string {
  const parts = sealed.split(".");
  const part = parts[index]!;
  const pos = Math.min(at, part.length - 1);
  const alphabet =
    index === 1 ? "0123456789abcdef" : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const replacement = alphabet[(alphabet.indexOf(part[pos]!) + 1) % alphabet.length]!;
  parts[index] = part.slice(0, pos) + replacement + part.slice(pos + 1);
  return parts.join(".");
}

describe("secret box", () => {
  it("opens what it sealed, in the v1.<key id>.<iv>.<ciphertext>.<tag> format", () => {
    for (const plaintext of ["R0ut1ngK3y", "", "密钥 🔑 with \n newlines", "x".repeat(10_000)]) {
      const sealed = box.seal(plaintext, aad);
      expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{22}$/);
      expect(sealed.split(".")[1]).toBe(newKey.id);
      expect(box.open(sealed, aad)).toBe(plaintext);
    }
  });

  it("the key id is the first 8 hex digits of the key's SHA-256", () => {
    const bytes = randomBytes(32);
    expect(new SecretKey(bytes).id).toBe(createHash("sha256").update(bytes).digest("hex").slice(0, 8));
    expect(box.currentKeyId).toBe(newKey.id);
  });

  it("uses a fresh IV for every seal: the same plaintext never seals the same twice", () => {
    const seen = new Set<string>();
    const ivs = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const sealed = box.seal("same secret", aad);
      seen.add(sealed);
      ivs.add(sealed.split(".")[2]!);
    }
    expect(seen.size).toBe(100);
    expect(ivs.size).toBe(100);
  });

  it("throws, never returns a plaintext, when any part is altered", () => {
    const sealed = box.seal("pagerduty-routing-key", aad);
    const parts = sealed.split(".");
    // Every character of the IV, ciphertext and tag, each changed in turn.
    for (const index of [2, 3, 4]) {
      for (let at = 0; at < parts[index]!.length; at++) {
        expect(() => box.open(tamper(sealed, index, at), aad), `part ${index} char ${at}`).toThrow(
          SecretBoxError,
        );
      }
    }
    expect(() => box.open(tamper(sealed, 0), aad)).toThrow(/not a sealed value/); // version
    expect(() => box.open(sealed.replace(/^v1\./, "v2."), aad)).toThrow(/not a sealed value/);
    expect(() => box.open(tamper(sealed, 1), aad)).toThrow(/unknown key/); // key id
    // A part shortened, lengthened, emptied or with a character outside base64url.
    expect(() => box.open(`${sealed}A`, aad)).toThrow(SecretBoxError);
    expect(() => box.open(sealed.slice(0, -1), aad)).toThrow(/damaged/);
    expect(() => box.open([...parts.slice(0, 4), ""].join("."), aad)).toThrow(/damaged/);
    expect(() => box.open([...parts.slice(0, 4), `${parts[4]!.slice(0, -1)}=`].join("."), aad)).toThrow(
      /damaged/,
    );
    expect(() => box.open([...parts.slice(0, 3), parts[3]!.slice(4), parts[4]].join("."), aad)).toThrow(
      /failed authentication/,
    );
    expect(() => box.open([...parts, "x"].join("."), aad)).toThrow(/not a sealed value/);
    expect(() => box.open("plain text secret", aad)).toThrow(/not a sealed value/);
  });

  it("a value sealed for one row does not open for another (aad)", () => {
    const sealed = box.seal("twilio-auth-token", "alert_channels:ach_01");
    expect(() => box.open(sealed, "alert_channels:ach_02")).toThrow(/failed authentication.*another row/);
    expect(() => box.open(sealed, "")).toThrow(SecretBoxError);
    expect(box.open(sealed, "alert_channels:ach_01")).toBe("twilio-auth-token");
  });

  it("opens values sealed with a previous key, and says they need rotation", () => {
    const before = createSecretBox({ current: oldKey, previous: [] }).seal("dingtalk-secret", aad);
    const rotated = createSecretBox({ current: newKey, previous: [oldKey] });
    expect(rotated.open(before, aad)).toBe("dingtalk-secret");
    expect(rotated.needsRotation(before)).toBe(true);
    const resealed = rotated.seal(rotated.open(before, aad), aad);
    expect(rotated.needsRotation(resealed)).toBe(false);
    expect(resealed.split(".")[1]).toBe(newKey.id);
    // A previous key is never used to seal.
    expect(rotated.seal("x", aad).split(".")[1]).toBe(newKey.id);
  });

  it("a value sealed with a key it does not have throws, naming the key id", () => {
    const stray = SecretKey.generate();
    const sealed = createSecretBox({ current: stray, previous: [] }).seal("feishu-secret", aad);
    expect(() => box.open(sealed, aad)).toThrow(SecretBoxError);
    expect(() => box.open(sealed, aad)).toThrow(new RegExp(`unknown key \\(id ${stray.id}\\)`));
    expect(box.needsRotation(sealed)).toBe(false);
  });

  it("the current key listed among the previous ones is harmless", () => {
    const both = createSecretBox({ current: newKey, previous: [newKey, oldKey] });
    const sealed = both.seal("s", aad);
    expect(both.needsRotation(sealed)).toBe(false);
    expect(both.open(sealed, aad)).toBe("s");
  });

  it("sealJson/openJson carry a record of secret fields", () => {
    const secrets = { routing_key: "R0ut1ng", signing_secret: "whsec_abc" };
    const sealed = box.sealJson(secrets, aad);
    expect(sealed).not.toContain("R0ut1ng");
    expect(box.openJson(sealed, aad)).toEqual(secrets);
    expect(() => box.openJson(sealed, "alert_channels:other")).toThrow(SecretBoxError);
    expect(() => box.openJson(box.seal("not json", aad), aad)).toThrow(/not a record/);
    expect(() => box.openJson(box.seal('{"n":1}', aad), aad)).toThrow(/not a record/);
    expect(() => box.openJson(box.seal('["a"]', aad), aad)).toThrow(/not a record/);
  });

  it("a key shows only its id when printed, logged or serialised", () => {
    const key = SecretKey.generate();
    const base64 = key.toBase64();
    for (const shown of [JSON.stringify({ key }), inspect({ key }), String(key), `${key}`]) {
      expect(shown).toContain(key.id);
      expect(shown).not.toContain(base64);
      expect(shown).not.toContain(base64.slice(0, 12));
    }
  });
});

describe("parseSecretKey", () => {
  const bytes = randomBytes(32);
  it("takes 32 bytes as base64 (with or without padding, or base64url) or as 64 hex digits", () => {
    const id = new SecretKey(bytes).id;
    for (const text of [
      bytes.toString("base64"),
      bytes.toString("base64").replace(/=$/, ""),
      bytes.toString("base64url"),
      bytes.toString("hex"),
      bytes.toString("hex").toUpperCase(),
      `  ${bytes.toString("base64")}\n`,
    ]) {
      expect(parseSecretKey(text).id, text).toBe(id);
    }
    expect(parseSecretKey(SecretKey.generate().toBase64())).toBeInstanceOf(SecretKey);
  });

  it("refuses passphrases, other lengths and placeholders, saying how to make a key", () => {
    for (const bad of [
      "correct horse battery staple and more words",
      "hunter2",
      randomBytes(16).toString("base64"),
      randomBytes(31).toString("base64"),
      randomBytes(33).toString("base64"),
      randomBytes(32).toString("hex").slice(1),
      Buffer.from("a passphrase of 32 characters!!!").toString("base64"),
      Buffer.alloc(32).toString("base64"),
      "0123456789abcdef".repeat(4),
      `${bytes.toString("base64").slice(0, 42)}!=`,
    ]) {
      expect(() => parseSecretKey(bad), bad).toThrow(/openssl rand -base64 32/);
    }
  });

  it("refuses a non-canonical base64 spelling (the spare bits of the last character set)", () => {
    const text = bytes.toString("base64").replace(/=$/, "");
    const last = text.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const other = alphabet[alphabet.indexOf(last) ^ 1]!;
    expect(() => parseSecretKey(text.slice(0, -1) + other)).toThrow(/32 random bytes/);
  });
});
