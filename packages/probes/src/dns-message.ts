import { isIPv4, isIPv6 } from "node:net";
import * as dnsPacket from "dns-packet";

export type ParsedMessage =
  | { ok: true; packet: dnsPacket.DecodedPacket }
  /** `id` is null when the message is too short to carry one. */
  | { ok: false; id: number | null; reason: string };

const HEADER_BYTES = 12;
/** RDATA sizes fixed by RFC 1035 §3.4.1 and RFC 3596 §2.2. */
const fixedRdata: Record<number, { name: string; bytes: number }> = {
  1: { name: "A", bytes: 4 },
  28: { name: "AAAA", bytes: 16 },
};

/**
 * Decodes a DNS message, refusing one whose declared counts and lengths overrun it. dns-packet alone reads an
 * A record's four bytes whatever RDLENGTH says, so a short record would come out as "1.2.undefined.undefined".
 */
export function parseMessage(msg: Buffer): ParsedMessage {
  const id = msg.length >= 2 ? msg.readUInt16BE(0) : null;
  const fail = (reason: string): ParsedMessage => ({ ok: false, id, reason });
  if (msg.length < HEADER_BYTES) return fail(`header is ${msg.length} bytes, not ${HEADER_BYTES}`);
  const framing = checkFraming(msg);
  if (framing) return fail(framing);
  let packet: dnsPacket.DecodedPacket;
  try {
    // Compression loops and forward pointers are refused here (dns-packet follows only backward pointers).
    packet = dnsPacket.decode(msg);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  const records = [...(packet.answers ?? []), ...(packet.authorities ?? []), ...(packet.additionals ?? [])];
  for (const record of records) {
    if (record.type === "A" && !isIPv4(record.data)) return fail(`A record with data ${record.data}`);
    if (record.type === "AAAA" && !isIPv6(record.data)) return fail(`AAAA record with data ${record.data}`);
  }
  return { ok: true, packet };
}

/** Walks the sections by their declared counts and lengths; the reason when something overruns, else null. */
function checkFraming(msg: Buffer): string | null {
  let offset = HEADER_BYTES;
  const sections = [
    { name: "question", count: msg.readUInt16BE(4), fixed: 4 },
    { name: "answer", count: msg.readUInt16BE(6), fixed: 10 },
    { name: "authority", count: msg.readUInt16BE(8), fixed: 10 },
    { name: "additional", count: msg.readUInt16BE(10), fixed: 10 },
  ];
  for (const section of sections) {
    for (let i = 0; i < section.count; i++) {
      const where = `${section.name} ${i + 1} of ${section.count}`;
      const afterName = skipName(msg, offset);
      if (typeof afterName === "string") return `${where}: ${afterName}`;
      offset = afterName + section.fixed;
      if (offset > msg.length) return `${where} runs past the end of the message`;
      if (section.fixed === 4) continue;
      const type = msg.readUInt16BE(afterName);
      const rdlength = msg.readUInt16BE(afterName + 8);
      if (offset + rdlength > msg.length) {
        return `${where}: RDLENGTH ${rdlength} but ${msg.length - offset} bytes left in the message`;
      }
      const fixed = fixedRdata[type];
      if (fixed && rdlength !== fixed.bytes)
        return `${where}: ${fixed.name} record with RDLENGTH ${rdlength}`;
      offset += rdlength;
    }
  }
  return null;
}

/** The offset after the name at `offset` (a compression pointer ends it), or why it cannot be read. */
function skipName(msg: Buffer, offset: number): number | string {
  const overrun = "name runs past the end of the message";
  let at = offset;
  for (;;) {
    const len = msg[at];
    if (len === undefined) return overrun;
    if (len === 0) return at + 1;
    if ((len & 0xc0) === 0xc0) return at + 2 <= msg.length ? at + 2 : overrun;
    // 0x40 and 0x80 label types are obsolete (RFC 6891 §5) or undefined.
    if ((len & 0xc0) !== 0) return `label type 0x${(len & 0xc0).toString(16)} in a name`;
    at += 1 + len;
  }
}
