import { createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import type { Authenticator } from "@nats-io/transport-node";

/**
 * The agent's NATS login with an nkey user seed (`SU…`), signed by Node's own Ed25519 (OpenSSL) instead of
 * nats.js's `nkeyAuthenticator`, which signs with tweetnacl's pure-JS curve arithmetic on every (re)connect:
 * that one login left the agent about 9 MB larger for good (optimised code for the arithmetic, and the
 * typed-array garbage of it), a sixth of its idle footprint (docs/benchmarks.md, "Agent footprint").
 * Ed25519 signatures are deterministic, so the server sees exactly what nats.js would have sent.
 */
export function nkeySeedAuthenticator(seed: string): Authenticator {
  const { privateKey, publicNkey } = parseUserSeed(seed);
  const encoder = new TextEncoder();
  return (nonce?: string) => {
    // The same key signs probe results (docs/verify.md), behind a prefix with a newline; a server's nonce is
    // base64url. Anything else is refused, so no server can get a result statement signed as a "nonce".
    if (nonce && !/^[A-Za-z0-9_=-]{1,256}$/.test(nonce))
      throw new Error("refused to sign an unusual NATS nonce");
    return {
      nkey: publicNkey,
      // As nats.js: standard base64 of the signature of the nonce's UTF-8 bytes; no nonce, no signature.
      sig: nonce ? Buffer.from(sign(null, encoder.encode(nonce), privateKey)).toString("base64") : "",
    };
  };
}

const PREFIX_SEED = 18 << 3; // "S"
const PREFIX_USER = 20 << 3; // "U"
/** DER of a PKCS#8 Ed25519 private key up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");

/** Decodes and checks a user seed: base32, two prefix bytes, 32 bytes of Ed25519 seed, CRC-16 (LE). */
export function parseUserSeed(seed: string): { privateKey: KeyObject; publicNkey: string } {
  const raw = base32Decode(seed.trim());
  if (raw.length !== 36) throw new Error("not an nkey seed: wrong length");
  const body = raw.subarray(0, 34);
  if (crc16(body) !== (raw[34]! | (raw[35]! << 8))) throw new Error("not an nkey seed: bad checksum");
  const kind = raw[0]! & 0xf8;
  const role = ((raw[0]! & 0x07) << 5) | ((raw[1]! & 0xf8) >> 3);
  if (kind !== PREFIX_SEED || role !== PREFIX_USER) throw new Error("not an nkey user seed (SU…)");
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, body.subarray(2)]),
    format: "der",
    type: "pkcs8",
  });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  const publicKey = new Uint8Array(35);
  publicKey[0] = PREFIX_USER;
  publicKey.set(spki.subarray(spki.length - 32), 1);
  const check = crc16(publicKey.subarray(0, 33));
  publicKey[33] = check & 0xff;
  publicKey[34] = check >> 8;
  return { privateKey, publicNkey: base32Encode(publicKey) };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Decode(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) throw new Error("not an nkey seed: not base32");
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(value >> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** CRC-16/XMODEM (CCITT polynomial 0x1021, initial 0), as nkeys checks its keys. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
