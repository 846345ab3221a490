/** An AS number list: AS number → the name its line's comment gives (null when it gives none). */
export type AsnList = ReadonlyMap<number, string | null>;

const LINE = /^(?:AS)?([0-9]{1,10})$/i;

/**
 * X4BNet's ASN.txt format: one `AS14061 # DIGITALOCEAN-ASN - Digital Ocean, Inc., US` per line (a tab may
 * stand before the `#`); blank lines and lines that are only a comment are skipped. The comment is kept as
 * the name unless it is only a link (some entries cite the issue that added them). An AS listed twice keeps
 * the first name found. Throws on a line that is not an AS number, and when the text holds none.
 */
export function parseAsnList(text: string, label: string): AsnList {
  const asns = new Map<number, string | null>();
  let lineNo = 0;
  for (const raw of text.split("\n")) {
    lineNo++;
    const hash = raw.indexOf("#");
    const entry = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (entry === "") continue;
    const match = LINE.exec(entry);
    const asn = match ? Number(match[1]) : Number.NaN;
    if (!(asn >= 1 && asn <= 0xffffffff)) {
      const shown = entry.length > 60 ? `${entry.slice(0, 60)}…` : entry;
      throw new Error(`${label}:${lineNo}: expected an AS number (AS123), found ${JSON.stringify(shown)}`);
    }
    const comment = hash >= 0 ? raw.slice(hash + 1).trim() : "";
    const name = comment === "" || /^https?:\/\/\S*$/.test(comment) ? null : comment;
    if (!asns.has(asn) || (asns.get(asn) === null && name !== null)) asns.set(asn, name);
  }
  if (asns.size === 0) throw new Error(`${label}: holds no AS numbers`);
  return asns;
}
