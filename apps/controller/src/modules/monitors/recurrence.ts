/**
 * Recurring maintenance windows: a subset of RFC 5545 RRULE evaluated in an IANA time zone, written here
 * (no dependency) so that its DST behaviour is ours and tested.
 *
 * Supported parts: `FREQ=DAILY|WEEKLY|MONTHLY` (required), `INTERVAL=1..366`, `BYDAY` (WEEKLY: `MO,WE`;
 * MONTHLY: with an ordinal, `1SU`, `-1FR`), `BYMONTHDAY` (MONTHLY: `1..31`, `-1..-31`; a month without that
 * day is skipped), and at most one of `COUNT=1..1000` / `UNTIL=YYYYMMDD[THHMMSSZ]`. Anything else is refused.
 * An occurrence is a local date at or after the start date that the rule matches, at the start's local time.
 *
 * Local times in a DST change (RFC 5545 §3.3.5): a time that does not exist (the spring gap) is taken with
 * the offset before the gap (02:30 on a day Europe/Berlin skips 02:00–03:00 becomes 03:30 CEST); a time
 * that occurs twice (autumn) is its first occurrence. A window keeps its length in real minutes.
 */

export type Freq = "DAILY" | "WEEKLY" | "MONTHLY";

export interface Rule {
  freq: Freq;
  interval: number;
  /** Weekdays 0 (SU) … 6 (SA), each with an ordinal for MONTHLY (0: every such day of the month). */
  byDay: { day: number; nth: number }[];
  byMonthDay: number[];
  count: number | null;
  /** Epoch ms: no occurrence starts after it. */
  until: number | null;
}

export interface Recurrence {
  rule: Rule;
  /** `YYYY-MM-DDTHH:MM`: the first date and the local time of every occurrence. */
  startLocal: string;
  timeZone: string;
  durationMinutes: number;
}

export class RecurrenceError extends Error {}

const DAY_MS = 86_400_000;
const DAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether the runtime knows the IANA zone. */
export function isTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in ms (local − UTC). */
export function offsetAt(instant: number, tz: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(instant))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  const local = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return local - (instant - (((instant % 1000) + 1000) % 1000));
}

/** The instant of a local wall time in a zone (the gap and the overlap as the file's comment says). */
export function localToInstant(wallAsUtc: number, tz: string): number {
  const before = offsetAt(wallAsUtc - DAY_MS, tz);
  const after = offsetAt(wallAsUtc + DAY_MS, tz);
  const valid = [wallAsUtc - before, wallAsUtc - after].filter((t) => offsetAt(t, tz) === wallAsUtc - t);
  if (valid.length === 0) return wallAsUtc - before;
  return Math.min(...valid);
}

/** The local calendar day (days since 1970-01-01) of an instant. */
const localDay = (instant: number, tz: string) => Math.floor((instant + offsetAt(instant, tz)) / DAY_MS);

function civil(day: number): { y: number; m: number; d: number; wd: number; dim: number } {
  const dt = new Date(day * DAY_MS);
  const y = dt.getUTCFullYear();
  const m = dt.getUTCMonth();
  return { y, m, d: dt.getUTCDate(), wd: dt.getUTCDay(), dim: new Date(Date.UTC(y, m + 1, 0)).getUTCDate() };
}

/** Parses the supported RRULE subset; a leading `RRULE:` is allowed. */
export function parseRule(text: string): Rule {
  const src = text.trim().replace(/^RRULE:/i, "");
  if (src.length === 0 || src.length > 200) throw new RecurrenceError("must be 1–200 characters");
  const rule: Rule = { freq: "DAILY", interval: 1, byDay: [], byMonthDay: [], count: null, until: null };
  const seen = new Set<string>();
  for (const part of src.split(";")) {
    const [key, value, ...rest] = part.split("=");
    const k = (key ?? "").toUpperCase();
    if (!value || rest.length > 0) throw new RecurrenceError(`"${part}" is not KEY=VALUE`);
    if (seen.has(k)) throw new RecurrenceError(`${k} is given twice`);
    seen.add(k);
    const v = value.toUpperCase();
    if (k === "FREQ") {
      if (v !== "DAILY" && v !== "WEEKLY" && v !== "MONTHLY")
        throw new RecurrenceError("FREQ must be DAILY, WEEKLY or MONTHLY");
      rule.freq = v;
    } else if (k === "INTERVAL") rule.interval = int(v, 1, 366, k);
    else if (k === "COUNT") rule.count = int(v, 1, 1000, k);
    else if (k === "UNTIL") rule.until = until(v);
    else if (k === "BYMONTHDAY")
      rule.byMonthDay = v.split(",").map((x) => {
        const n = int(x, -31, 31, k);
        if (n === 0) throw new RecurrenceError("BYMONTHDAY must not be 0");
        return n;
      });
    else if (k === "BYDAY")
      rule.byDay = v.split(",").map((x) => {
        const m = /^([+-]?\d)?(SU|MO|TU|WE|TH|FR|SA)$/.exec(x);
        if (!m) throw new RecurrenceError(`BYDAY "${x}" is not a weekday like MO or 1SU`);
        const nth = m[1] ? Number(m[1]) : 0;
        if (nth < -5 || nth > 5) throw new RecurrenceError("a BYDAY ordinal is −5…5");
        return { day: DAYS.indexOf(m[2] ?? ""), nth };
      });
    else throw new RecurrenceError(`${k} is not supported (FREQ, INTERVAL, BYDAY, BYMONTHDAY, COUNT, UNTIL)`);
  }
  if (!seen.has("FREQ")) throw new RecurrenceError("FREQ is required");
  if (rule.count !== null && rule.until !== null)
    throw new RecurrenceError("COUNT and UNTIL exclude each other");
  if (rule.freq === "DAILY" && (rule.byDay.length > 0 || rule.byMonthDay.length > 0))
    throw new RecurrenceError("DAILY takes no BYDAY or BYMONTHDAY");
  if (rule.freq === "WEEKLY" && (rule.byMonthDay.length > 0 || rule.byDay.some((d) => d.nth !== 0)))
    throw new RecurrenceError("WEEKLY takes BYDAY without ordinals, and no BYMONTHDAY");
  return rule;
}

function int(v: string, min: number, max: number, key: string): number {
  if (!/^[+-]?\d{1,4}$/.test(v)) throw new RecurrenceError(`${key} must be a whole number`);
  const n = Number(v);
  if (n < min || n > max) throw new RecurrenceError(`${key} must be ${min}–${max}`);
  return n;
}

function until(v: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$/.exec(v);
  if (!m) throw new RecurrenceError("UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSSZ (UTC)");
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as number[];
  // A date alone: the whole day counts (UTC).
  const t = m[4] === undefined ? Date.UTC(y!, mo! - 1, d! + 1) - 1 : Date.UTC(y!, mo! - 1, d!, h, mi, s);
  if (Number.isNaN(t)) throw new RecurrenceError("UNTIL is not a date");
  return t;
}

/** `YYYY-MM-DDTHH:MM` → day number and minutes after midnight. */
export function parseStartLocal(text: string): { day: number; minutes: number } {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(text);
  if (!m) throw new RecurrenceError("must be a local time YYYY-MM-DDTHH:MM");
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || y < 2000 || y > 2200)
    throw new RecurrenceError("is not a real date and time");
  return { day: t / DAY_MS, minutes: h * 60 + mi };
}

/** Whether the rule matches a local day (at or after the start day `d0`). */
function matches(rule: Rule, d0: number, day: number): boolean {
  const c = civil(day);
  const s = civil(d0);
  if (rule.freq === "DAILY") return (day - d0) % rule.interval === 0;
  if (rule.freq === "WEEKLY") {
    // Weeks start on Monday (WKST=MO).
    const weekOf = (d: number) => Math.floor((d - ((civil(d).wd + 6) % 7)) / 7);
    if ((weekOf(day) - weekOf(d0)) % rule.interval !== 0) return false;
    return rule.byDay.length === 0 ? c.wd === s.wd : rule.byDay.some((b) => b.day === c.wd);
  }
  if ((c.y * 12 + c.m - (s.y * 12 + s.m)) % rule.interval !== 0) return false;
  if (rule.byDay.length === 0 && rule.byMonthDay.length === 0) return c.d === s.d;
  const byMonthDay = rule.byMonthDay.some((n) => (n > 0 ? c.d === n : c.d === c.dim + n + 1));
  const byDay = rule.byDay.some(
    (b) =>
      b.day === c.wd &&
      (b.nth === 0 ||
        (b.nth > 0 ? Math.ceil(c.d / 7) === b.nth : Math.ceil((c.dim - c.d + 1) / 7) === -b.nth)),
  );
  // Both given: a day must satisfy both (RFC 5545 narrows with each BYxxx part).
  if (rule.byDay.length > 0 && rule.byMonthDay.length > 0) return byDay && byMonthDay;
  return byDay || byMonthDay;
}

/**
 * The occurrences `[start, end)` (epoch ms) that overlap `[from, to)`, oldest first, at most `limit`. COUNT
 * is counted from the start day. Spans longer than ~3 years are cut (a caller asks for weeks).
 */
export function occurrences(r: Recurrence, from: number, to: number, limit = 1000): [number, number][] {
  const { day: d0, minutes } = parseStartLocal(r.startLocal);
  const durMs = r.durationMinutes * 60_000;
  const firstDay = Math.max(d0, localDay(from - durMs, r.timeZone) - 1);
  const lastDay = Math.min(localDay(to, r.timeZone) + 1, firstDay + 1200);
  let ordinal = 0;
  if (r.rule.count !== null)
    for (let d = d0; d < firstDay && ordinal < r.rule.count; d++) {
      if (matches(r.rule, d0, d)) ordinal++;
    }
  const out: [number, number][] = [];
  for (let d = firstDay; d <= lastDay && out.length < limit; d++) {
    if (!matches(r.rule, d0, d)) continue;
    ordinal++;
    if (r.rule.count !== null && ordinal > r.rule.count) break;
    const start = localToInstant(d * DAY_MS + minutes * 60_000, r.timeZone);
    if (r.rule.until !== null && start > r.rule.until) break;
    if (start < to && start + durMs > from) out.push([start, start + durMs]);
  }
  return out;
}
