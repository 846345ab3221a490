import type { PeerCertificate, TLSSocket } from "node:tls";
import type { z } from "zod";
import type { tlsSummarySchema } from "./probe-results.js";

export type TlsSummary = z.infer<typeof tlsSummarySchema>;

/** `{CN: "a", O: ["b", "c"]}` → `CN=a, O=b, O=c` (Node gives repeated attributes as arrays). */
function distinguishedName(dn: Record<string, string | string[] | undefined> | undefined): string {
  if (!dn) return "";
  return Object.entries(dn)
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${key}=${v ?? ""}`))
    .join(", ");
}

const isoDate = (text: string): string => {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
};

/**
 * What the server presented, read right after the handshake (the socket may be gone once the body is cut).
 * Trust is reported, not enforced: the probe connects with rejectUnauthorized false so an expired or
 * self-signed certificate is still measured and described.
 */
export function summarizeTls(socket: TLSSocket): TlsSummary | null {
  const cert: PeerCertificate | Record<string, never> = socket.getPeerCertificate(false);
  if (!cert || !("fingerprint256" in cert)) return null;
  const error = socket.authorizationError as unknown;
  return {
    subject: distinguishedName(cert.subject as unknown as Record<string, string | string[]>),
    issuer: distinguishedName(cert.issuer as unknown as Record<string, string | string[]>),
    valid_from: isoDate(cert.valid_from),
    valid_to: isoDate(cert.valid_to),
    san: (cert.subjectaltname ?? "")
      .split(/,\s*/)
      .filter((s) => s !== "")
      .map((s) => s.replace(/^IP Address:/, "IP:")),
    protocol: socket.getProtocol() ?? null,
    cipher: socket.getCipher()?.name ?? null,
    authorized: socket.authorized,
    authorization_error: error === null || error === undefined ? null : String(error),
    fingerprint_sha256: cert.fingerprint256,
  };
}
