import { aead, cipherBits, forwardSecret } from "./cipher-suite.js";
import { HSTS_MIN_MAX_AGE } from "./hsts.js";
import type { TlsVersionName } from "./schema.js";

/*
 * The SSL Labs rating (SSL Server Rating Guide 2009r, as testssl.sh implements it; docs/tls-grading.md),
 * a pure function of what the audit saw, so each rule has its own table test.
 */

export interface GradeInput {
  /** Versions whose handshake completed. */
  offered: TlsVersionName[];
  /** Versions the server refused outright (not the unknown ones). */
  refused: TlsVersionName[];
  certKey: { algorithm: string; bits: number };
  /** The main handshake's ephemeral key, null for a static RSA key exchange. */
  ephemeral: { type: string; bits: number } | null;
  /** IANA names of every suite negotiated (main handshake and one per offered version). */
  suites: string[];
  /** What makes the grade T: expired, not yet valid, self-signed, untrusted, revoked, SHA-1 signature. */
  trustProblems: string[];
  nameMismatch: boolean;
  /** The weakest hash signing a sent certificate (roots excluded), when MD2/MD5/SHA-1. */
  weakSignatureHash: "MD2" | "MD5" | "SHA-1" | null;
  /** Warnings that turn an A into A− (severity warning or critical, trust and name ones excluded). */
  warningCount: number;
  hstsMaxAge: number | null;
}

export interface Grade {
  grade: string;
  grade_if_trusted: string;
  protocol_score: number;
  key_exchange_score: number;
  cipher_strength_score: number;
  score: number;
  caps: { grade: string; reason: string }[];
}

const PROTOCOL_SCORES: Record<TlsVersionName, number> = {
  "TLS 1.0": 90,
  "TLS 1.1": 95,
  "TLS 1.2": 100,
  "TLS 1.3": 100,
};
const LETTERS = ["A", "B", "C", "D", "E", "F"] as const;
type Letter = (typeof LETTERS)[number];

/** RSA, DSA and DH sizes; EC and EdDSA have their own scale (a 256-bit curve ≈ 3072-bit RSA). */
export function keyScore(algorithm: string, bits: number): number {
  if (/^(?:EC|ECDH|ECDSA|Ed25519|Ed448|X25519|X448|ECDH\+ML-KEM|ML-KEM)$/i.test(algorithm)) {
    return bits < 110 ? 20 : bits < 123 ? 40 : bits < 163 ? 80 : bits < 225 ? 90 : 100;
  }
  return bits < 512 ? 20 : bits < 1024 ? 40 : bits < 2048 ? 80 : bits < 4096 ? 90 : 100;
}

export function cipherScore(bits: number): number {
  return bits === 0 ? 0 : bits < 128 ? 20 : bits < 256 ? 80 : 100;
}

export function letterFor(score: number): Letter {
  return score >= 80
    ? "A"
    : score >= 65
      ? "B"
      : score >= 50
        ? "C"
        : score >= 35
          ? "D"
          : score >= 20
            ? "E"
            : "F";
}

const mid = (values: number[]): number =>
  values.length === 0 ? 0 : (Math.max(...values) + Math.min(...values)) / 2;

export function gradeServer(input: GradeInput): Grade {
  const caps: { grade: Letter; reason: string }[] = [];
  const cap = (grade: Letter, reason: string) => caps.push({ grade, reason });

  const protocol = mid(input.offered.map((v) => PROTOCOL_SCORES[v]));
  const certKey = keyScore(input.certKey.algorithm, input.certKey.bits);
  // An ephemeral key of a size nobody reported (a group this Node cannot size) is not held against the
  // server: the certificate's key scores alone.
  const keyExchange =
    input.ephemeral && input.ephemeral.bits > 0
      ? Math.min(certKey, keyScore(input.ephemeral.type, input.ephemeral.bits))
      : certKey;
  const bits = input.suites.map(cipherBits).filter((b): b is number => b !== null);
  const cipher = mid(bits.map(cipherScore));
  const zero = protocol === 0 || keyExchange === 0 || cipher === 0;
  const score = zero ? 0 : Math.round((0.3 * protocol + 0.3 * keyExchange + 0.4 * cipher) * 10) / 10;

  if (keyExchange <= 40) cap("F", `key exchange scores ${keyExchange} (key too small)`);
  else if (keyExchange <= 80) cap("B", `key exchange scores ${keyExchange} (weak key)`);
  if (bits.some((b) => b < 112)) cap("F", "a cipher suite under 112 bits is negotiable");
  if (input.weakSignatureHash === "MD5" || input.weakSignatureHash === "MD2") {
    cap("F", `a certificate is signed with ${input.weakSignatureHash}`);
  }
  if (input.refused.includes("TLS 1.2")) cap("C", "TLS 1.2 is not offered");
  for (const legacy of ["TLS 1.0", "TLS 1.1"] as const) {
    if (input.offered.includes(legacy)) cap("B", `${legacy} is offered`);
  }
  if (input.suites.length > 0 && !input.suites.some(forwardSecret)) cap("B", "no forward secrecy");
  if (input.suites.length > 0 && !input.suites.some(aead)) cap("B", "no AEAD cipher suite");

  caps.sort((a, b) => LETTERS.indexOf(b.grade) - LETTERS.indexOf(a.grade));
  const capped = caps[0]?.grade;
  const base = letterFor(score);
  const letter = capped && LETTERS.indexOf(capped) > LETTERS.indexOf(base) ? capped : base;
  let ifTrusted: string = letter;
  if (letter === "A" && caps.length === 0) {
    if (input.warningCount > 0) ifTrusted = "A-";
    else if ((input.hstsMaxAge ?? 0) >= HSTS_MIN_MAX_AGE) ifTrusted = "A+";
  }
  const allCaps: { grade: string; reason: string }[] = [...caps];
  if (input.trustProblems.length > 0) allCaps.unshift({ grade: "T", reason: input.trustProblems.join("; ") });
  if (input.nameMismatch) allCaps.unshift({ grade: "M", reason: "the certificate does not match the name" });
  return {
    grade: input.nameMismatch ? "M" : input.trustProblems.length > 0 ? "T" : ifTrusted,
    grade_if_trusted: ifTrusted,
    protocol_score: protocol,
    key_exchange_score: keyExchange,
    cipher_strength_score: cipher,
    score,
    caps: allCaps,
  };
}
