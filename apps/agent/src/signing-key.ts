import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type ResultSigner, resultSigner } from "@vantage/protocol";

/**
 * The signing key of an agent without NATS credentials (the embedded local node): an Ed25519 key of its
 * own, made on first start and kept in `file` (PKCS#8 PEM, mode 0600), so its public key (in the node list)
 * stays the same across restarts and shared results stay verifiable (docs/verify.md).
 */
export function loadOrCreateSigningKey(file: string): ResultSigner {
  let pem: string;
  try {
    pem = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync("ed25519");
    pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    try {
      // `wx`: two processes starting at once keep one key, the first one written.
      writeFileSync(file, pem, { mode: 0o600, flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      pem = readFileSync(file, "utf8");
    }
  }
  // A key copied in with looser permissions is tightened: it speaks for the node.
  chmodSync(file, 0o600);
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`${file} holds no Ed25519 private key`);
  return resultSigner(key);
}
