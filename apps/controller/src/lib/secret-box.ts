import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { inspect } from "node:util";

/**
 * Secrets at rest (alert-channel secrets and the like): AES-256-GCM under `VANTAGE_SECRET_KEY`, with a
 * random 96-bit IV per seal. A sealed value is one line of text,
 *
 *   v1.<key id>.<iv>.<ciphertext>.<tag>      (the last three base64url, without padding)
 *
 * The key id (8 hex digits of the key's SHA-256) says which key sealed it, so keys can be rotated: the old
 * key stays readable as a previous key while `pnpm secrets:rotate` re-seals. The caller's `aad` (e.g.
 * `alert_channels:<id>`) is authenticated with the version and key id, so a value copied to another row
 * or altered in any part fails to open instead of opening as garbage. See docs/security.md.
 */

const version = "v1";
const ivBytes = 12;
const tagBytes = 16;
const keyBytes = 32;

/** Key bytes, reachable from this file only: a SecretKey in a config object or a log line shows its id. */
const keyMaterial = new WeakMap<SecretKey, Buffer>();

/** A 32-byte AES key and its id. Printing, logging or serialising one shows the id only. */
export class SecretKey {
  /** First 8 hex digits of SHA-256 over the key's 32 bytes (`base64 -d | sha256sum`). */
  readonly id: string;

  constructor(bytes: Uint8Array) {
    if (bytes.length !== keyBytes) throw new Error(`a secret key is ${keyBytes} bytes, not ${bytes.length}`);
    const copy = Buffer.from(bytes);
    this.id = createHash("sha256").update(copy).digest("hex").slice(0, 8);
    keyMaterial.set(this, copy);
  }

  /** A new random key (one parseSecretKey will take back: see weakness). */
  static generate(): SecretKey {
    let bytes = randomBytes(keyBytes);
    while (weakness(bytes)) bytes = randomBytes(keyBytes);
    return new SecretKey(bytes);
  }

  /** The key as `openssl rand -base64 32` writes one, for the data directory's key file. */
  toBase64(): string {
    return material(this).toString("base64");
  }

  toJSON(): string {
    return `[secret key ${this.id}]`;
  }

  toString(): string {
    return this.toJSON();
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}

function material(key: SecretKey): Buffer {
  const bytes = keyMaterial.get(key);
  if (!bytes) throw new Error("not a SecretKey");
  return bytes;
}

const howToMake = "make one with `openssl rand -base64 32`";

/**
 * A key as written in the environment or the key file: 32 bytes as base64 (44 characters with `=`, or 43
 * without; base64url accepted) or as 64 hex digits. Anything else, a passphrase above all, is refused with a
 * message that does not repeat the value.
 */
export function parseSecretKey(text: string): SecretKey {
  const s = text.trim();
  let bytes: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(s)) bytes = Buffer.from(s, "hex");
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(s)) {
    const plain = s.replace(/=$/, "").replaceAll("-", "+").replaceAll("_", "/");
    const decoded = Buffer.from(plain, "base64");
    // The 43rd character carries 2 spare bits: only the canonical spelling of 32 bytes is a key.
    if (decoded.length === keyBytes && decoded.toString("base64").replace(/=$/, "") === plain)
      bytes = decoded;
  }
  if (!bytes) {
    throw new Error(
      `must be 32 random bytes as base64 (44 characters) or hex (64 characters), not a passphrase: ${howToMake}`,
    );
  }
  const weak = weakness(bytes);
  if (weak) throw new Error(`${weak}; ${howToMake}`);
  return new SecretKey(bytes);
}

/**
 * 32 random bytes are all printable ASCII once in 10¹⁴ and have ~30 distinct values: keys that are not
 * are a passphrase in base64, or a placeholder such as all zeros or "0123…" repeated.
 */
function weakness(bytes: Buffer): string | undefined {
  if (bytes.every((b) => b >= 0x20 && b < 0x7f))
    return "decodes to text: a passphrase in base64 is not a key";
  if (new Set(bytes).size < 16) return "looks like a placeholder, not 32 random bytes";
  return undefined;
}

/** Opening failed: not a sealed value, sealed with a key this process lacks, or altered / for another row. */
export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

export interface SecretBox {
  /** The id of the key new values are sealed with. */
  readonly currentKeyId: string;
  seal(plaintext: string, aad: string): string;
  /** The plaintext, or a SecretBoxError; never a wrong plaintext. */
  open(sealed: string, aad: string): string;
  /**
   * True when the value was sealed with one of the previous keys (re-seal it with the current one); false
   * for the current key or a key it does not have (open says which); a SecretBoxError for a non-value.
   */
  needsRotation(sealed: string): boolean;
  /** Seals a record of secret fields (`{routing_key: "…"}`) as one value. */
  sealJson(secrets: Record<string, string>, aad: string): string;
  /** Opens what `sealJson` sealed; a SecretBoxError when it is not a record of strings. */
  openJson(sealed: string, aad: string): Record<string, string>;
  /**
   * HMAC-SHA256 (base64url) of `data` under a key derived from the current key for `purpose` (signed links:
   * a purpose's MACs are worthless for any other).
   */
  sign(purpose: string, data: string): string;
  /** Whether `mac` is `sign(purpose, data)` under the current key or a previous one (constant time). */
  verify(purpose: string, data: string, mac: string): boolean;
}

function macWith(key: SecretKey, purpose: string, data: string): Buffer {
  const subkey = createHmac("sha256", material(key)).update(`vantage-mac:${purpose}`).digest();
  return createHmac("sha256", subkey).update(data, "utf8").digest();
}

interface Parts {
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/** Strict base64url: a character changed anywhere changes the bytes (Node's decoder skips junk). */
function decodePart(s: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return undefined;
  const bytes = Buffer.from(s, "base64url");
  return bytes.toString("base64url") === s ? bytes : undefined;
}

function parse(sealed: string): Parts {
  const parts = sealed.split(".");
  if (parts.length !== 5 || parts[0] !== version || !/^[0-9a-f]{8}$/.test(parts[1]!)) {
    throw new SecretBoxError(`not a sealed value (want ${version}.<key id>.<iv>.<ciphertext>.<tag>)`);
  }
  const iv = decodePart(parts[2]!);
  const ciphertext = decodePart(parts[3]!);
  const tag = decodePart(parts[4]!);
  if (iv?.length !== ivBytes || !ciphertext || tag?.length !== tagBytes) {
    throw new SecretBoxError("sealed value is damaged: an IV, ciphertext or tag part is malformed");
  }
  return { keyId: parts[1]!, iv, ciphertext, tag };
}

/** The authenticated data: the header, then the caller's binding (the header has a fixed length). */
function additionalData(keyId: string, aad: string): Buffer {
  return Buffer.from(`${version}.${keyId}.${aad}`, "utf8");
}

export function createSecretBox(keys: { current: SecretKey; previous: readonly SecretKey[] }): SecretBox {
  const byId = new Map<string, SecretKey>([[keys.current.id, keys.current]]);
  for (const key of keys.previous) {
    const known = byId.get(key.id);
    // Two different keys with one id (a 1 in 4·10⁹ chance) would make the id ambiguous: refuse.
    if (known && !material(known).equals(material(key))) {
      throw new Error(`two different secret keys share the id ${key.id}: generate another key`);
    }
    if (!known) byId.set(key.id, key);
  }
  const current = keys.current;

  const box: SecretBox = {
    currentKeyId: current.id,
    sign(purpose, data) {
      return macWith(current, purpose, data).toString("base64url");
    },
    verify(purpose, data, mac) {
      const given = decodePart(mac);
      if (given?.length !== 32) return false;
      let ok = false;
      for (const key of byId.values()) if (timingSafeEqual(macWith(key, purpose, data), given)) ok = true;
      return ok;
    },
    seal(plaintext, aad) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv("aes-256-gcm", material(current), iv, { authTagLength: tagBytes });
      cipher.setAAD(additionalData(current.id, aad));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [version, current.id, iv, ciphertext, tag]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(sealed, aad) {
      const { keyId, iv, ciphertext, tag } = parse(sealed);
      const key = byId.get(keyId);
      if (!key) {
        throw new SecretBoxError(
          `sealed with an unknown key (id ${keyId}): it is neither VANTAGE_SECRET_KEY (${current.id}) nor in ` +
            "VANTAGE_SECRET_KEYS_PREVIOUS",
        );
      }
      const decipher = createDecipheriv("aes-256-gcm", material(key), iv, { authTagLength: tagBytes });
      decipher.setAAD(additionalData(keyId, aad));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretBoxError(
          `sealed value failed authentication (key ${keyId}): altered, or sealed for another row than ${JSON.stringify(aad)}`,
        );
      }
    },
    needsRotation(sealed) {
      const { keyId } = parse(sealed);
      return keyId !== current.id && byId.has(keyId);
    },
    sealJson(secrets, aad) {
      return box.seal(JSON.stringify(secrets), aad);
    },
    openJson(sealed, aad) {
      let value: unknown;
      try {
        value = JSON.parse(box.open(sealed, aad));
      } catch (err) {
        if (err instanceof SecretBoxError) throw err;
        throw new SecretBoxError("sealed value is not a record of secret strings");
      }
      if (
        typeof value !== "object" ||
        value === null ||
        Array.isArray(value) ||
        !Object.values(value).every((v) => typeof v === "string")
      ) {
        throw new SecretBoxError("sealed value is not a record of secret strings");
      }
      return value as Record<string, string>;
    },
  };
  return box;
}
