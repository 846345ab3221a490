import { X509Certificate } from "node:crypto";
import tls from "node:tls";
import type { CertInfo } from "./certificate.js";

/*
 * Our own path building, not socket.authorized: OpenSSL checks validity dates against the real clock and
 * reports one error (the last it met), so an expired self-signed certificate would read "expired" only. Here
 * trust is the signature path alone; dates are judged separately against ctx.now. No AIA fetching: a
 * missing intermediate is reported, as curl, testssl and most non-browser clients fail on it too.
 */

export type TrustProblem = "self_signed" | "untrusted_root" | "incomplete_chain";

export interface TrustVerdict {
  trusted: boolean;
  problem: TrustProblem | null;
  /** The path from the leaf up (leaf, intermediates, then the anchor when trusted): OCSP needs the issuer. */
  path: X509Certificate[];
}

let systemAnchors: X509Certificate[] | undefined;

/** Node's bundled Mozilla store (what Node clients trust by default) plus the configured extra CAs. */
export function trustAnchors(extraCa: readonly string[] = []): X509Certificate[] {
  systemAnchors ??= tls.rootCertificates.map((pem) => new X509Certificate(pem));
  const extra = extraCa.flatMap(
    (bundle) => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [],
  );
  return [...systemAnchors, ...extra.map((pem) => new X509Certificate(pem))];
}

/** `issuer` signed `cert`: names chain (key usage allows signing certificates) and the signature verifies. */
function issued(issuer: X509Certificate, cert: X509Certificate): boolean {
  return cert.checkIssued(issuer) && verifies(cert, issuer);
}

function verifies(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

export function verifyChain(chain: readonly CertInfo[], anchors: readonly X509Certificate[]): TrustVerdict {
  const leaf = chain[0]?.x509;
  if (!leaf) return { trusted: false, problem: "incomplete_chain", path: [] };
  const path = [leaf];
  const used = new Set([leaf.fingerprint256]);
  const verdict = (trusted: boolean, problem: TrustProblem | null): TrustVerdict => ({
    trusted,
    problem,
    path,
  });
  for (let current = leaf; path.length <= 10; ) {
    if (anchors.some((a) => a.fingerprint256 === current.fingerprint256)) return verdict(true, null);
    const anchor = anchors.find((a) => issued(a, current));
    if (anchor) {
      path.push(anchor);
      return verdict(true, null);
    }
    const next = chain.find((c) => !used.has(c.x509.fingerprint256) && c.x509.ca && issued(c.x509, current));
    if (next) {
      path.push(next.x509);
      used.add(next.x509.fingerprint256);
      current = next.x509;
      continue;
    }
    // Self-signed by name and signature; not checkIssued, which also wants keyCertSign in a leaf's key usage.
    if (current.subject === current.issuer && verifies(current, current)) {
      return verdict(false, current === leaf ? "self_signed" : "untrusted_root");
    }
    // The leaf alone: the server sent none of the intermediates. A sent CA whose issuer is unknown: the
    // path leads to a root (or cross-sign) the store does not have.
    return verdict(false, current === leaf ? "incomplete_chain" : "untrusted_root");
  }
  return verdict(false, "incomplete_chain");
}
