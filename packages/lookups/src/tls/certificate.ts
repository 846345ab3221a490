import { X509Certificate } from "node:crypto";
import * as pkijs from "pkijs";
import type { ChainItem } from "./schema.js";
import { countScts, SCT_LIST_OID } from "./sct.js";

/*
 * One certificate, read once: Node's X509Certificate for what it knows (names, dates, key, fingerprint,
 * AIA), pkijs for what Node 20 lacks (the signature algorithm, raw extensions).
 */

/** OpenSSL's short names for the signature OIDs seen in the wild; others are reported as the OID. */
const SIGNATURE_NAMES: Record<string, string> = {
  "1.2.840.113549.1.1.2": "md2WithRSAEncryption",
  "1.2.840.113549.1.1.4": "md5WithRSAEncryption",
  "1.2.840.113549.1.1.5": "sha1WithRSAEncryption",
  "1.2.840.113549.1.1.10": "rsassaPss",
  "1.2.840.113549.1.1.11": "sha256WithRSAEncryption",
  "1.2.840.113549.1.1.12": "sha384WithRSAEncryption",
  "1.2.840.113549.1.1.13": "sha512WithRSAEncryption",
  "1.2.840.113549.1.1.14": "sha224WithRSAEncryption",
  "1.2.840.10045.4.1": "ecdsa-with-SHA1",
  "1.2.840.10045.4.3.1": "ecdsa-with-SHA224",
  "1.2.840.10045.4.3.2": "ecdsa-with-SHA256",
  "1.2.840.10045.4.3.3": "ecdsa-with-SHA384",
  "1.2.840.10045.4.3.4": "ecdsa-with-SHA512",
  "1.2.840.10040.4.3": "dsa-with-SHA1",
  "2.16.840.1.101.3.4.3.2": "dsa_with_SHA256",
  "1.3.101.112": "ED25519",
  "1.3.101.113": "ED448",
};

/** The hash behind a signature algorithm name, when it is one the rating guide punishes. */
export function weakSignatureHash(signatureAlgorithm: string): "MD2" | "MD5" | "SHA-1" | null {
  const name = signatureAlgorithm.toLowerCase();
  if (name.startsWith("md2")) return "MD2";
  if (name.startsWith("md5")) return "MD5";
  if (/sha1\b|sha1with|with-sha1$|dsa-with-sha1/.test(name)) return "SHA-1";
  return null;
}

const CURVE_BITS: Record<string, number> = {
  prime256v1: 256,
  secp384r1: 384,
  secp521r1: 521,
  secp256k1: 256,
  secp224r1: 224,
  secp192r1: 192,
  "P-256": 256,
  "P-384": 384,
  "P-521": 521,
};

export interface CertInfo {
  der: Buffer;
  x509: X509Certificate;
  item: ChainItem;
  /** DNS names of the subjectAltName (`DNS:` entries), lower-cased. */
  sanDomains: string[];
  ocspUrls: string[];
  sctCount: number;
  selfIssued: boolean;
  /** For pkijs-based checks (OCSP). */
  pkijs: pkijs.Certificate;
}

export function readCertificate(der: Buffer): CertInfo {
  const x509 = new X509Certificate(der);
  const parsed = pkijs.Certificate.fromBER(der);
  const oid = parsed.signatureAlgorithm.algorithmId;
  const key = publicKey(x509);
  const sct = parsed.extensions?.find((e) => e.extnID === SCT_LIST_OID);
  return {
    der,
    x509,
    pkijs: parsed,
    sanDomains: sanDnsNames(x509.subjectAltName),
    ocspUrls: [...(x509.infoAccess ?? "").matchAll(/^OCSP - URI:(.+)$/gm)].map((m) => (m[1] ?? "").trim()),
    sctCount: sct ? countScts(sct.extnValue.valueBlock.valueHexView) : 0,
    selfIssued: x509.subject === x509.issuer,
    item: {
      subject: oneLine(x509.subject),
      issuer: oneLine(x509.issuer),
      not_before: new Date(x509.validFrom).toISOString(),
      not_after: new Date(x509.validTo).toISOString(),
      signature_algorithm: SIGNATURE_NAMES[oid] ?? oid,
      public_key_algorithm: key.algorithm,
      public_key_bits: key.bits,
      serial_number: x509.serialNumber.toUpperCase(),
      fingerprint_sha256: x509.fingerprint256,
      is_ca: x509.ca,
    },
  };
}

function publicKey(x509: X509Certificate): { algorithm: string; bits: number } {
  const key = x509.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case "rsa":
      return { algorithm: "RSA", bits: details.modulusLength ?? 0 };
    case "rsa-pss":
      return { algorithm: "RSA-PSS", bits: details.modulusLength ?? 0 };
    case "dsa":
      return { algorithm: "DSA", bits: details.modulusLength ?? 0 };
    case "ec":
      return { algorithm: "EC", bits: CURVE_BITS[details.namedCurve ?? ""] ?? 0 };
    case "ed25519":
      return { algorithm: "Ed25519", bits: 256 };
    case "ed448":
      return { algorithm: "Ed448", bits: 456 };
    default:
      return { algorithm: key.asymmetricKeyType ?? "unknown", bits: 0 };
  }
}

/** "C=US\nO=Org\nCN=name" (Node's form) → "C=US, O=Org, CN=name". */
function oneLine(dn: string): string {
  return dn.split("\n").filter(Boolean).join(", ");
}

/** Node joins SAN entries with ", " and quotes entries that contain one; DNS names never do. */
function sanDnsNames(san: string | undefined): string[] {
  if (!san) return [];
  return san
    .split(", ")
    .filter((entry) => entry.startsWith("DNS:"))
    .map((entry) => entry.slice(4).toLowerCase());
}

/** The leaf's name, or the reason it does not cover `domain` (Node's own matching rules, wildcards incl.). */
export function nameMismatch(leaf: CertInfo, domain: string): string | null {
  return leaf.x509.checkHost(domain, { subject: "default" }) === undefined
    ? `the certificate is for ${leaf.sanDomains.join(", ") || leaf.item.subject}, not ${domain}`
    : null;
}
