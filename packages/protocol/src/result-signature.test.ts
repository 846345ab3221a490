import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  decodePublicNkey,
  encodePublicNkey,
  privateKeyFromSeed,
  resultSigner,
  verifyResultSignature,
} from "./result-signature.js";

describe("result signatures", () => {
  it("encodes JSON canonically: sorted keys, no undefined members, no whitespace", () => {
    expect(
      canonicalJson({ b: 1, a: [true, null, undefined, "x"], c: undefined, d: { z: 0.5, y: "é" } }),
    ).toBe('{"a":[true,null,null,"x"],"b":1,"d":{"y":"é","z":0.5}}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it("signs a statement its public nkey verifies, and nothing else", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const signer = resultSigner(privateKey);
    expect(signer.key).toMatch(/^U[A-Z2-7]{55}$/);
    const statement = canonicalJson({ v: 1, node_id: "fra1", outcome: { success: true, latency_ms: 1.5 } });
    const sig = signer.sign(statement);
    expect(verifyResultSignature(signer.key, statement, sig)).toBe(true);
    expect(verifyResultSignature(signer.key, statement.replace("1.5", "0.5"), sig)).toBe(false);
    const other = resultSigner(generateKeyPairSync("ed25519").privateKey);
    expect(verifyResultSignature(other.key, statement, sig)).toBe(false);
    expect(verifyResultSignature("Unot-a-key", statement, sig)).toBe(false);
    expect(verifyResultSignature(signer.key, statement, "AAAA")).toBe(false);
  });

  it("round-trips public nkeys and refuses a wrong checksum", () => {
    const raw = new Uint8Array(32).map((_, i) => i * 7);
    const key = encodePublicNkey(raw);
    expect([...decodePublicNkey(key)]).toEqual([...raw]);
    const broken = key.slice(0, 10) + (key[10] === "A" ? "B" : "A") + key.slice(11);
    expect(() => decodePublicNkey(broken)).toThrow(/checksum/);
  });

  it("derives the same key from the same seed, as an nkey seed file does", () => {
    const seed = new Uint8Array(32).fill(9);
    expect(resultSigner(privateKeyFromSeed(seed)).key).toBe(resultSigner(privateKeyFromSeed(seed)).key);
  });
});
