import { ipToBigInt } from "./address.js";
import { type AsnTable, orgNamesOf, withBuckets } from "./asn-table.js";

/*
 * ip-location-db's ASN CSVs (`ip_range_start,ip_range_end,autonomous_system_number,
 * autonomous_system_organization`, inclusive ranges, the name quoted when it holds a comma or a quote) →
 * an AsnTable. Run once per data version; the result is cached on disk (asn-cache.ts). Ranges are handled
 * as BigInts here, where speed does not matter, and packed into 32-bit words at the end.
 */

interface Row {
  start: bigint;
  end: bigint;
  asn: number;
  org: number;
}

/** Builds the table from the two files' bytes; throws naming the file and line of the first bad row. */
export function compileAsnTable(
  v4: { name: string; bytes: Buffer },
  v6: { name: string; bytes: Buffer },
): AsnTable {
  const orgs: (string | null)[] = [null];
  const orgIndex = new Map<string, number>();
  const intern = (name: string) => {
    if (name === "") return 0;
    let i = orgIndex.get(name);
    if (i === undefined) {
      i = orgs.length;
      orgs.push(name);
      orgIndex.set(name, i);
    }
    return i;
  };
  const rows4 = flatten(parseRows(v4.name, v4.bytes, 4, intern));
  const rows6 = flatten(parseRows(v6.name, v6.bytes, 6, intern));
  const table: Omit<AsnTable, "v4Buckets" | "v6Buckets"> = {
    v4Start: Uint32Array.from(rows4, (r) => Number(r.start)),
    v4End: Uint32Array.from(rows4, (r) => Number(r.end)),
    v4Asn: Uint32Array.from(rows4, (r) => r.asn),
    v4Org: Uint32Array.from(rows4, (r) => r.org),
    v6Start: new Uint32Array(rows6.length * 4),
    v6End: new Uint32Array(rows6.length * 4),
    v6Asn: Uint32Array.from(rows6, (r) => r.asn),
    v6Org: Uint32Array.from(rows6, (r) => r.org),
    orgs: orgNamesOf(orgs),
  };
  for (const [i, r] of rows6.entries()) {
    for (let w = 0; w < 4; w++) {
      const shift = BigInt(96 - 32 * w);
      table.v6Start[4 * i + w] = Number((r.start >> shift) & 0xffffffffn);
      table.v6End[4 * i + w] = Number((r.end >> shift) & 0xffffffffn);
    }
  }
  return withBuckets(table);
}

function parseRows(name: string, bytes: Buffer, family: 4 | 6, intern: (org: string) => number): Row[] {
  const rows: Row[] = [];
  let line = 0;
  for (let at = 0; at < bytes.length; ) {
    let eol = bytes.indexOf(10, at);
    if (eol < 0) eol = bytes.length;
    line++;
    const text = bytes.toString("utf8", at, eol > at && bytes[eol - 1] === 13 ? eol - 1 : eol);
    at = eol + 1;
    if (text === "" || (line === 1 && text.startsWith("ip_range_start,"))) continue;
    const problem = parseRow(text, family, intern, rows);
    if (problem) throw new Error(`${name} line ${line}: ${problem}`);
  }
  if (rows.length === 0) throw new Error(`${name} holds no ranges`);
  return rows;
}

/** Appends the row to `rows`, or says what is wrong with it. */
function parseRow(text: string, family: 4 | 6, intern: (org: string) => number, rows: Row[]): string | null {
  const c1 = text.indexOf(",");
  const c2 = text.indexOf(",", c1 + 1);
  const c3 = text.indexOf(",", c2 + 1);
  if (c1 < 0 || c2 < 0 || c3 < 0) return "expected start,end,asn,organisation";
  const start = toBigInt(text.slice(0, c1), family);
  const end = toBigInt(text.slice(c1 + 1, c2), family);
  if (start === null || end === null) return `expected two IPv${family} addresses`;
  if (end < start) return "the range ends before it starts";
  const asnText = text.slice(c2 + 1, c3);
  const asn = Number(asnText);
  if (!/^[0-9]{1,10}$/.test(asnText) || asn > 0xffffffff) return `bad AS number ${JSON.stringify(asnText)}`;
  const org = unquote(text.slice(c3 + 1));
  if (org === null) return "badly quoted organisation";
  rows.push({ start, end, asn, org: intern(org.trim()) });
  return null;
}

function toBigInt(text: string, family: 4 | 6): bigint | null {
  // A row of the other family is refused, not read as a number of the wrong width.
  return text.includes(":") === (family === 6) ? ipToBigInt(text) : null;
}

/** A CSV field: as is, or between double quotes with `""` standing for one quote. */
function unquote(field: string): string | null {
  if (!field.startsWith('"')) return field.includes('"') ? null : field;
  if (field.length < 2 || !field.endsWith('"')) return null;
  const inner = field.slice(1, -1);
  if (inner.replaceAll('""', "").includes('"')) return null;
  return inner.replaceAll('""', '"');
}

/**
 * Sorted, disjoint ranges, which a binary search needs. The data is nearly so already; where two ranges
 * overlap (one in the 2026-06 build: two DoD blocks), the range starting later answers for the shared part,
 * being the more specific, and the enclosing one answers around it.
 */
function flatten(rows: Row[]): Row[] {
  const order = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
  // By start, the wider first, so that a narrower range with the same start is the one that answers.
  rows.sort((x, y) => order(x.start, y.start) || order(y.end, x.end));
  const out: Row[] = [];
  const open: Row[] = [];
  let cursor = 0n;
  const emit = (row: Row, until: bigint) => {
    if (cursor <= until) out.push({ ...row, start: cursor, end: until });
    if (until + 1n > cursor) cursor = until + 1n;
  };
  for (const row of rows) {
    for (let top = open.at(-1); top && top.end < row.start; top = open.at(-1)) {
      emit(top, top.end);
      open.pop();
    }
    const top = open.at(-1);
    if (top) emit(top, row.start - 1n);
    cursor = row.start;
    open.push(row);
  }
  for (let top = open.pop(); top; top = open.pop()) emit(top, top.end);
  return out;
}
