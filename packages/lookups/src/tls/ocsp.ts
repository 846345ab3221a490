import type { X509Certificate } from "node:crypto";
import * as pkijs from "pkijs";
import type { CertInfo } from "./certificate.js";

export type OcspStatus = "good" | "revoked" | "unknown" | "not_stapled" | "no_ocsp_url" | "error";

const BASIC_OCSP_RESPONSE = "1.3.6.1.5.5.7.48.1.1";
const STATUS_NAMES = ["good", "revoked", "unknown"] as const;

/**
 * The leaf's revocation status as the server stapled it. Only a staple that parses, is signed by the leaf's
 * issuer (or a responder it delegated to) and names the leaf counts; anything else is `error` with the
 * reason in `detail`. No staple: `not_stapled` when the leaf names an OCSP responder (we do not query it:
 * the audit talks to the audited server only), `no_ocsp_url` when it names none.
 */
export async function readOcspStaple(
  staple: Buffer | null,
  leaf: CertInfo,
  /** The leaf's issuer, then the rest of its path up to the root (as far as it was found). */
  issuers: readonly X509Certificate[],
  now: Date,
): Promise<{ status: OcspStatus; detail: string | null }> {
  if (!staple) return { status: leaf.ocspUrls.length > 0 ? "not_stapled" : "no_ocsp_url", detail: null };
  const error = (detail: string) => ({ status: "error" as const, detail });
  let basic: pkijs.BasicOCSPResponse;
  try {
    const response = pkijs.OCSPResponse.fromBER(staple);
    const code = response.responseStatus.valueBlock.valueDec;
    if (code !== 0) return error(`the stapled response says the responder failed (status ${code})`);
    if (response.responseBytes?.responseType !== BASIC_OCSP_RESPONSE) {
      return error("the stapled response is not a basic OCSP response");
    }
    basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes.response.valueBlock.valueHexView);
  } catch (e) {
    return error(`the stapled response cannot be parsed: ${(e as Error).message}`);
  }
  const [issuer, ...above] = issuers;
  if (!issuer) return error("the stapled response cannot be checked: the leaf's issuer is unknown");
  try {
    const issuerCert = pkijs.Certificate.fromBER(issuer.raw);
    // pkijs looks for the signer among the certificates embedded in the response only, but a CA signing
    // for itself usually embeds none: offer the issuer we already know as a candidate too.
    basic.certs = [...(basic.certs ?? []), issuerCert];
    // The issuer answers for itself without a chain to validate (it is the CA of the leaf); a delegated
    // responder embedded in the response must chain to it, up the leaf's own path.
    const path = [issuerCert, ...above.map((c) => pkijs.Certificate.fromBER(c.raw))];
    const verified = await basic.verify({
      trustedResponders: [issuerCert],
      trustedCerts: path,
      issuerCerts: [issuerCert],
    });
    if (!verified) return error("the stapled response's signature does not verify");
    const status = await basic.getCertificateStatus(leaf.pkijs, issuerCert);
    if (!status.isForCertificate) return error("the stapled response is for another certificate");
    const single = basic.tbsResponseData.responses.find((r) => r.nextUpdate !== undefined);
    if (single?.nextUpdate && single.nextUpdate < now) {
      return error(`the stapled response expired on ${single.nextUpdate.toISOString()}`);
    }
    return { status: STATUS_NAMES[status.status] ?? "unknown", detail: null };
  } catch (e) {
    return error(`the stapled response cannot be verified: ${(e as Error).message}`);
  }
}
