import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/**
 * Verifiable results (issue #30 item 6, docs/verify.md): an agent signs each probe result it sends with
 * its Ed25519 key (its NATS nkey, or the embedded agent's own key), over a canonical encoding of a
 * statement naming the node, the job, the probe asked for and the outcome. Anyone holding the statement,
 * the signature and the node's public key (`public_key` in `GET /v1/nodes`) can check it offline.
 *
 * Depends on nothing but `node:crypto`: the CLI (`vantage verify`) bundles this file as it is.
 */

/** Signed bytes = this prefix + the statement's canonical JSON (no signature of anything else can pass). */
export const RESULT_SIGNATURE_CONTEXT = "vantage-result-v1\n";

/** What an agent signs about one job it ran. */
export interface ResultStatement {
  v: 1;
  node_id: string;
  job_id: string;
  /** The agent's release. */
  agent_version: string;
  /** The job's probe spec as the agent received it (target, type, options). */
  spec: unknown;
  started_at: string;
  duration_ms: number;
  outcome: {
    success: boolean;
    latency_ms: number | null;
    error: { code: string; message: string } | null;
    detail: Record<string, unknown> | null;
  };
}

/** What travels with a signed reply: the signer's public key (an nkey, `U…`) and the signature (base64). */
export interface ReplySignature {
  key: string;
  sig: string;
}

/**
 * JSON with object keys sorted (by UTF-16 code units, as `Array.prototype.sort` compares), no whitespace,
 * strings and numbers as `JSON.stringify` writes them; `undefined` members are left out, as JSON.stringify
 * does. Both sides of a signature are JavaScript, so numbers encode alike.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const s = JSON.stringify(value);
    return s === undefined ? "null" : s;
  }
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined || typeof v === "function") continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(",")}}`;
}

/** An agent's signing key: `sign` returns the base64 Ed25519 signature of a statement's canonical JSON. */
export interface ResultSigner {
  /** The public key as an nkey (`U…`, base32 with a checksum), as `GET /v1/nodes` shows it. */
  readonly key: string;
  sign(statementJson: string): string;
}

export function resultSigner(privateKey: KeyObject): ResultSigner {
  const key = encodePublicNkey(rawPublicKey(privateKey));
  return {
    key,
    sign: (statementJson) =>
      sign(null, Buffer.from(RESULT_SIGNATURE_CONTEXT + statementJson, "utf8"), privateKey).toString(
        "base64",
      ),
  };
}

/** An Ed25519 private key from its 32-byte seed. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
}

/** The arguments of Ed25519's verify for a statement; undefined when the key or signature is malformed. */
function verifyInput(
  key: string,
  statementJson: string,
  sig: string,
): [Buffer, KeyObject, Buffer] | undefined {
  try {
    const signature = Buffer.from(sig, "base64");
    if (signature.length !== 64) return undefined;
    return [Buffer.from(RESULT_SIGNATURE_CONTEXT + statementJson, "utf8"), publicKeyOf(key), signature];
  } catch {
    return undefined;
  }
}

/** Whether `sig` (base64) is `key`'s (an nkey `U…`) signature of the statement; false for any malformed part. */
export function verifyResultSignature(key: string, statementJson: string, sig: string): boolean {
  const input = verifyInput(key, statementJson, sig);
  if (!input) return false;
  try {
    return verify(null, ...input);
  } catch {
    return false;
  }
}

/**
 * `verifyResultSignature` in libuv's thread pool: the Ed25519 check (about 0.1 ms of CPU) off the event
 * loop, so a controller's loop goes on with the replies that arrive meanwhile. Never rejects.
 */
export function verifyResultSignatureAsync(
  key: string,
  statementJson: string,
  sig: string,
): Promise<boolean> {
  const input = verifyInput(key, statementJson, sig);
  if (!input) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      verify(null, ...input, (err, ok) => resolve(!err && ok));
    } catch {
      resolve(false);
    }
  });
}

/** Decoded keys by nkey: a controller checks every result of its nodes with the same few keys. */
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_MAX = 16_384;

function publicKeyOf(key: string): KeyObject {
  let publicKey = keyCache.get(key);
  if (!publicKey) {
    const raw = decodePublicNkey(key);
    publicKey = createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" });
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(key, publicKey);
  }
  return publicKey;
}

const PREFIX_USER = 20 << 3; // "U"
/** DER of a PKCS#8 Ed25519 private key up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
/** DER of an SPKI Ed25519 public key up to its 32 bytes. */
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

function rawPublicKey(privateKey: KeyObject): Uint8Array {
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - 32);
}

/** A raw Ed25519 public key as a user nkey: base32 of the prefix byte, the key and a CRC-16 (LE). */
export function encodePublicNkey(raw: Uint8Array): string {
  const bytes = new Uint8Array(35);
  bytes[0] = PREFIX_USER;
  bytes.set(raw, 1);
  const check = crc16(bytes.subarray(0, 33));
  bytes[33] = check & 0xff;
  bytes[34] = check >> 8;
  return base32Encode(bytes);
}

/** The raw 32 bytes of a user nkey (`U…`); throws on a bad length, prefix or checksum. */
export function decodePublicNkey(key: string): Uint8Array {
  const bytes = base32Decode(key);
  if (bytes.length !== 35) throw new Error("not a public nkey: wrong length");
  if (bytes[0] !== PREFIX_USER) throw new Error("not a user public nkey (U…)");
  if (crc16(bytes.subarray(0, 33)) !== (bytes[33]! | (bytes[34]! << 8)))
    throw new Error("not a public nkey: bad checksum");
  return bytes.subarray(1, 33);
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** nkeys' base32 (RFC 4648 alphabet, no padding); throws "not base32" on any other character. */
export function base32Decode(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) throw new Error("not base32");
    value = ((value << 5) | v) & 0xffff;
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
    value = ((value << 8) | b) & 0xffff;
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
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
