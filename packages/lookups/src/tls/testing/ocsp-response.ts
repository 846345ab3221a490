import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { Issued } from "./pki.js";

export type CertStatusName = "good" | "revoked" | "unknown";

/**
 * A DER OCSPResponse for `leaf`, signed by its issuer (the CA answers for itself, RFC 6960 §4.2.2.2), as a
 * server would staple it. Built with pkijs, the library the audit reads it with, but from the RFC's
 * structures: a mistake on either side shows up as `error`, not as a silent pass.
 */
export async function buildOcspResponse(
  leaf: Issued,
  issuer: Issued,
  status: CertStatusName,
): Promise<Buffer> {
  const leafCert = pkijs.Certificate.fromBER(leaf.der);
  const issuerCert = pkijs.Certificate.fromBER(issuer.der);
  const certID = new pkijs.CertID();
  await certID.createForCertificate(leafCert, { hashAlgorithm: "SHA-256", issuerCertificate: issuerCert });
  const now = new Date();
  const certStatus =
    status === "revoked"
      ? new asn1js.Constructed({
          idBlock: { tagClass: 3, tagNumber: 1 },
          value: [new asn1js.GeneralizedTime({ valueDate: new Date(now.getTime() - 3_600_000) })],
        })
      : new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: status === "good" ? 0 : 2 } });
  const basic = new pkijs.BasicOCSPResponse({
    tbsResponseData: new pkijs.ResponseData({
      responderID: issuerCert.subject,
      producedAt: now,
      responses: [
        new pkijs.SingleResponse({
          certID,
          certStatus,
          thisUpdate: now,
          nextUpdate: new Date(now.getTime() + 7 * 86_400_000),
        }),
      ],
    }),
  });
  await basic.sign(issuer.privateKey, "SHA-256");
  const response = new pkijs.OCSPResponse({
    responseStatus: new asn1js.Enumerated({ value: 0 }),
    responseBytes: new pkijs.ResponseBytes({
      responseType: "1.3.6.1.5.5.7.48.1.1",
      response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER(false) }),
    }),
  });
  return Buffer.from(response.toSchema().toBER(false));
}
