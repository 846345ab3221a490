import * as asn1js from "asn1js";

/** The embedded SCT list extension (RFC 6962 §3.3). */
export const SCT_LIST_OID = "1.3.6.1.4.1.11129.2.4.2";

/**
 * How many SCTs an SCT list extension holds. `extnValue` is the content of the extension's OCTET STRING: a
 * second OCTET STRING wrapping the TLS-encoded list, a uint16 total length then {uint16 length, SCT}…
 * Entries are counted, not verified (that needs the CT log list). A list that runs past its bounds counts
 * the entries that fit: a malformed extension must not fail the audit.
 */
export function countScts(extnValue: Uint8Array): number {
  const inner = asn1js.fromBER(extnValue);
  if (inner.offset === -1 || !(inner.result instanceof asn1js.OctetString)) return 0;
  const list = Buffer.from(inner.result.valueBlock.valueHexView);
  if (list.length < 2) return 0;
  const end = Math.min(list.length, 2 + list.readUInt16BE(0));
  let count = 0;
  for (let at = 2; at + 2 <= end; ) {
    const length = list.readUInt16BE(at);
    if (length === 0 || at + 2 + length > end) break;
    count++;
    at += 2 + length;
  }
  return count;
}
