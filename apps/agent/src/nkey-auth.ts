import { type KeyObject, sign } from "node:crypto";
import type { Authenticator } from "@nats-io/transport-node";
import { base32Decode, crc16, privateKeyFromSeed, resultSigner } from "@vantage/protocol";

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

/** Decodes and checks a user seed: base32, two prefix bytes, 32 bytes of Ed25519 seed, CRC-16 (LE). */
export function parseUserSeed(seed: string): { privateKey: KeyObject; publicNkey: string } {
  let raw: Uint8Array;
  try {
    raw = base32Decode(seed.trim());
  } catch {
    throw new Error("not an nkey seed: not base32");
  }
  if (raw.length !== 36) throw new Error("not an nkey seed: wrong length");
  const body = raw.subarray(0, 34);
  if (crc16(body) !== (raw[34]! | (raw[35]! << 8))) throw new Error("not an nkey seed: bad checksum");
  const kind = raw[0]! & 0xf8;
  const role = ((raw[0]! & 0x07) << 5) | ((raw[1]! & 0xf8) >> 3);
  if (kind !== PREFIX_SEED || role !== PREFIX_USER) throw new Error("not an nkey user seed (SU…)");
  const privateKey = privateKeyFromSeed(body.subarray(2));
  // The nkey of the key's public half: the one resultSigner announces too.
  return { privateKey, publicNkey: resultSigner(privateKey).key };
}
