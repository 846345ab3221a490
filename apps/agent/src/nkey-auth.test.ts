import { createAccount, createUser, encode, fromSeed } from "@nats-io/nkeys";
import { describe, expect, it } from "vitest";
import { nkeySeedAuthenticator, parseUserSeed } from "./nkey-auth.js";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("nkeySeedAuthenticator", () => {
  it("answers a nonce exactly as nats.js's nkeyAuthenticator (nkeys + tweetnacl) would", () => {
    for (let i = 0; i < 20; i++) {
      const seed = text(createUser().getSeed());
      const kp = fromSeed(new TextEncoder().encode(seed));
      const nonce = `nonce-${i}-${Math.random().toString(36).slice(2)}`;
      expect(nkeySeedAuthenticator(`${seed}\n`)(nonce)).toEqual({
        nkey: kp.getPublicKey(),
        sig: encode(kp.sign(new TextEncoder().encode(nonce))),
      });
    }
  });

  it("sends the key without a signature when the server sent no nonce", () => {
    const seed = text(createUser().getSeed());
    expect(nkeySeedAuthenticator(seed)()).toEqual({
      nkey: fromSeed(new TextEncoder().encode(seed)).getPublicKey(),
      sig: "",
    });
  });

  it("refuses what is not a user seed", () => {
    const seed = text(createUser().getSeed());
    const flipped = `${seed.slice(0, 10)}${seed[10] === "A" ? "B" : "A"}${seed.slice(11)}`;
    expect(() => parseUserSeed(flipped)).toThrow("bad checksum");
    expect(() => parseUserSeed(text(createAccount().getSeed()))).toThrow("not an nkey user seed");
    expect(() => parseUserSeed(seed.slice(0, 40))).toThrow("wrong length");
    expect(() => parseUserSeed("su-not-base32!")).toThrow("not base32");
  });
});
