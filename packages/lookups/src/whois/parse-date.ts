/*
 * Registry dates → UTC `YYYY-MM-DD`. The time-zone rule:
 * - a date without a time (`2027/03/31`, `17-Mar-2027`) is the registry's calendar date, taken as written;
 * - a date-time with a zone (`Z`, `+01:00`, `+0000Z`, `UTC`, `(JST)`) is converted to UTC;
 * - a date-time without a zone is read in the offset the caller names for that registry (CNNIC's
 *   `2027-03-17 12:48:36` is Beijing time, UTC+8; see `zonelessOffsetMinutes`), else as UTC.
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** Zone names registries print, as minutes east of UTC. CST is left out: China's or the US Central's. */
const NAMED_ZONES: Record<string, number> = { z: 0, utc: 0, gmt: 0, jst: 540 };

const TIME = String.raw`(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?`;
const ZONE = String.raw`\s*\(?(z|utc|gmt|jst|[+-]\d{2}(?::?\d{2})?)?\)?z?`;
const FORMATS: { re: RegExp; ymd: (m: RegExpExecArray) => [string, string, string] }[] = [
  // 2026-08-13T04:00:00Z, 2027-03-17 12:48:36, 2027/03/31, 2027.03.31
  {
    re: new RegExp(String.raw`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})${TIME}${ZONE}$`, "i"),
    ymd: (m) => [m[1] ?? "", m[2] ?? "", m[3] ?? ""],
  },
  // 17-Mar-2027 (Nominet, many ccTLDs), 17 Mar 2027
  {
    re: new RegExp(String.raw`^(\d{1,2})[-\s]([a-z]{3})[a-z]*[-\s](\d{4})${TIME}${ZONE}$`, "i"),
    ymd: (m) => [m[3] ?? "", String(MONTHS.indexOf((m[2] ?? "").toLowerCase()) + 1), m[1] ?? ""],
  },
  // 17.03.2027 (several European registries)
  {
    re: new RegExp(String.raw`^(\d{1,2})\.(\d{1,2})\.(\d{4})${TIME}${ZONE}$`, "i"),
    ymd: (m) => [m[3] ?? "", m[2] ?? "", m[1] ?? ""],
  },
];

/**
 * `text` as a UTC calendar date, or null when it is none of the formats above (or no real date).
 * `zonelessOffsetMinutes`: the registry's offset for date-times printed without a zone.
 */
export function toUtcDate(text: string, zonelessOffsetMinutes = 0): string | null {
  const trimmed = text.trim();
  for (const { re, ymd } of FORMATS) {
    const m = re.exec(trimmed);
    if (!m) continue;
    const [y, mo, d] = ymd(m).map(Number) as [number, number, number];
    const day = new Date(Date.UTC(y, mo - 1, d));
    if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return null;
    const [hh, mm, ss, zone] = m.slice(4, 8);
    if (hh === undefined) return iso(day);
    const offset = zone === undefined ? zonelessOffsetMinutes : zoneOffset(zone);
    if (offset === null) return null;
    const at = Date.UTC(y, mo - 1, d, Number(hh), Number(mm), Number(ss ?? 0)) - offset * 60_000;
    return iso(new Date(at));
  }
  return null;
}

function zoneOffset(zone: string): number | null {
  const named = NAMED_ZONES[zone.toLowerCase()];
  if (named !== undefined) return named;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === "-" ? -minutes : minutes;
}

function iso(date: Date): string {
  return date.toISOString().slice(0, 10);
}
