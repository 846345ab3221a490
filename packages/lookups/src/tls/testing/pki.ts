import { webcrypto } from "node:crypto";
import "./reflect-metadata.js";
import * as x509 from "@peculiar/x509";

/*
 * A throw-away PKI for the TLS tests and the testssl comparison, made with WebCrypto at test time: EC P-256
 * keys (fast) unless a case needs RSA. Nothing here is trusted by the system: the audit trusts the root
 * through ctx.tls.extraCa.
 */
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

export interface Issued {
  cert: x509.X509Certificate;
  certPem: string;
  keyPem: string;
  der: Buffer;
  /** The private key (for signing further certificates or OCSP responses). */
  privateKey: CryptoKey;
  /** Which hash its children get signed with by default. */
  hash: "SHA-256" | "SHA-1";
}

export type KeySpec = "ec" | { rsaBits: number };

const DAY = 86_400_000;
const SCT_LIST_OID = "1.3.6.1.4.1.11129.2.4.2";

async function generateKeys(spec: KeySpec): Promise<CryptoKeyPair> {
  const algorithm =
    spec === "ec"
      ? { name: "ECDSA", namedCurve: "P-256" }
      : {
          name: "RSASSA-PKCS1-v1_5",
          modulusLength: spec.rsaBits,
          publicExponent: new Uint8Array([1, 0, 1]),
          hash: "SHA-256",
        };
  return (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as CryptoKeyPair;
}

function signing(key: CryptoKey, hash: Issued["hash"]): webcrypto.Algorithm | webcrypto.EcdsaParams {
  return key.algorithm.name === "ECDSA" ? { name: "ECDSA", hash } : { name: key.algorithm.name, hash };
}

async function toIssued(cert: x509.X509Certificate, keys: CryptoKeyPair): Promise<Issued> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString("base64").replace(/(.{64})/g, "$1\n")}\n-----END PRIVATE KEY-----\n`;
  return {
    cert,
    certPem: `${cert.toString("pem")}\n`,
    keyPem: keyPem.replace("\n\n", "\n"),
    der: Buffer.from(cert.rawData),
    privateKey: keys.privateKey,
    hash: "SHA-256",
  };
}

/** A self-signed root CA. */
export async function createRoot(name = "Vantage Test Root"): Promise<Issued> {
  const keys = await generateKeys("ec");
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}, O=Vantage Tests`,
    keys,
    notBefore: new Date(Date.now() - 30 * DAY),
    notAfter: new Date(Date.now() + 3650 * DAY),
    signingAlgorithm: signing(keys.privateKey, "SHA-256"),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return toIssued(cert, keys);
}

/** An intermediate CA signed by `issuer`. */
export async function createIntermediate(
  issuer: Issued,
  name = "Vantage Test Intermediate",
): Promise<Issued> {
  const keys = await generateKeys("ec");
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${name}, O=Vantage Tests`,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.privateKey,
    notBefore: new Date(Date.now() - 30 * DAY),
    notAfter: new Date(Date.now() + 1825 * DAY),
    signingAlgorithm: signing(issuer.privateKey, "SHA-256"),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return toIssued(cert, keys);
}

export interface LeafOptions {
  names: string[];
  key?: KeySpec;
  /** Days from now (negative: in the past). */
  notBeforeDays?: number;
  notAfterDays?: number;
  hash?: Issued["hash"];
  ocspUrl?: string;
  /** Embeds a (fake) SCT list extension with this many entries. */
  scts?: number;
}

function leafExtensions(opts: LeafOptions): x509.Extension[] {
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(opts.names.map((value) => ({ type: "dns" as const, value }))),
  ];
  if (opts.ocspUrl) {
    extensions.push(new x509.AuthorityInfoAccessExtension({ ocsp: [opts.ocspUrl] }));
  }
  if (opts.scts) extensions.push(new x509.Extension(SCT_LIST_OID, false, fakeSctList(opts.scts)));
  return extensions;
}

/** A server certificate signed by `issuer`, or self-signed when `issuer` is null. */
export async function issueLeaf(issuer: Issued | null, opts: LeafOptions): Promise<Issued> {
  const keys = await generateKeys(opts.key ?? "ec");
  const common = {
    notBefore: new Date(Date.now() + (opts.notBeforeDays ?? -1) * DAY),
    notAfter: new Date(Date.now() + (opts.notAfterDays ?? 90) * DAY),
    extensions: leafExtensions(opts),
  };
  const subject = `CN=${opts.names[0] ?? "leaf"}`;
  const cert = issuer
    ? await x509.X509CertificateGenerator.create({
        ...common,
        subject,
        issuer: issuer.cert.subject,
        publicKey: keys.publicKey,
        signingKey: issuer.privateKey,
        signingAlgorithm: signing(issuer.privateKey, opts.hash ?? issuer.hash),
      })
    : await x509.X509CertificateGenerator.createSelfSigned({
        ...common,
        name: subject,
        keys,
        signingAlgorithm: signing(keys.privateKey, opts.hash ?? "SHA-256"),
      });
  return toIssued(cert, keys);
}

/**
 * The extnValue of an SCT list extension: OCTET STRING { uint16 list length, { uint16 length, SCT }… }.
 * Each SCT is version 0, a random 32-byte log id, a timestamp, no extensions and a dummy signature: enough
 * to be counted, not to be verified (no log knows it).
 */
export function fakeSctList(count: number): Uint8Array {
  const scts = Array.from({ length: count }, (_, i) => {
    const sct = Buffer.alloc(1 + 32 + 8 + 2 + 4 + 8);
    sct.writeUInt8(0, 0);
    webcrypto.getRandomValues(sct.subarray(1, 33));
    sct.writeBigUInt64BE(BigInt(Date.now() - i), 33);
    sct.writeUInt16BE(0, 41); // no extensions
    sct.writeUInt8(4, 43); // hash sha256
    sct.writeUInt8(3, 44); // ecdsa
    sct.writeUInt16BE(8, 45);
    return Buffer.concat([u16(sct.length), sct]);
  });
  const list = Buffer.concat(scts);
  const body = Buffer.concat([u16(list.length), list]);
  return derOctetString(body);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

function derOctetString(body: Buffer): Uint8Array {
  const len =
    body.length < 0x80
      ? Buffer.from([body.length])
      : body.length < 0x100
        ? Buffer.from([0x81, body.length])
        : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([0x04]), len, body]);
}
