import { describe, expect, it } from "vitest";
import {
  isTimeZone,
  localToInstant,
  occurrences,
  parseRule,
  type Recurrence,
  RecurrenceError,
} from "./recurrence.js";

const iso = (t: number) => new Date(t).toISOString();
const at = (s: string) => Date.parse(s);
const rec = (rrule: string, startLocal: string, timeZone: string, durationMinutes = 60): Recurrence => ({
  rule: parseRule(rrule),
  startLocal,
  timeZone,
  durationMinutes,
});
const starts = (r: Recurrence, from: string, to: string) =>
  occurrences(r, at(from), at(to)).map(([s]) => iso(s));

describe("recurrence: RRULE subset in a time zone", () => {
  it("daily at 02:30 Europe/Berlin across the spring gap and the autumn overlap", () => {
    const r = rec("FREQ=DAILY", "2026-03-27T02:30", "Europe/Berlin");
    expect(starts(r, "2026-03-27T00:00:00Z", "2026-03-31T00:00:00Z")).toEqual([
      "2026-03-27T01:30:00.000Z", // CET +1
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:30:00.000Z", // 02:30 does not exist: taken with the offset before, = 03:30 CEST
      "2026-03-30T00:30:00.000Z", // CEST +2
    ]);
    // 25 October 2026: 02:30 happens twice (CEST, then CET); the first one counts.
    expect(starts(r, "2026-10-24T00:00:00Z", "2026-10-27T00:00:00Z")).toEqual([
      "2026-10-24T00:30:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
    ]);
  });

  it("keeps the local time across New York's changes, and the length in real minutes", () => {
    const r = rec("FREQ=WEEKLY;BYDAY=SA,SU", "2026-03-01T01:30", "America/New_York", 120);
    const occ = occurrences(r, at("2026-03-07T00:00:00Z"), at("2026-03-09T12:00:00Z"));
    expect(occ.map(([s, e]) => [iso(s), (e - s) / 60_000])).toEqual([
      ["2026-03-07T06:30:00.000Z", 120], // EST −5
      ["2026-03-08T06:30:00.000Z", 120], // 01:30 EST: still before the 02:00 jump
    ]);
    expect(starts(r, "2026-03-14T00:00:00Z", "2026-03-15T12:00:00Z")).toEqual([
      "2026-03-14T05:30:00.000Z", // EDT −4
      "2026-03-15T05:30:00.000Z",
    ]);
  });

  it("a window open at an instant is found when it started the day before", () => {
    const r = rec("FREQ=DAILY", "2026-01-01T23:00", "UTC", 180);
    expect(starts(r, "2026-01-05T01:00:00Z", "2026-01-05T01:00:01Z")).toEqual(["2026-01-04T23:00:00.000Z"]);
    expect(starts(r, "2026-01-05T02:00:00Z", "2026-01-05T02:00:01Z")).toEqual([]);
  });

  it("INTERVAL, COUNT and UNTIL", () => {
    expect(
      starts(
        rec("FREQ=DAILY;INTERVAL=2;COUNT=3", "2026-01-01T10:00", "UTC"),
        "2026-01-01T00:00:00Z",
        "2026-02-01T00:00:00Z",
      ),
    ).toEqual(["2026-01-01T10:00:00.000Z", "2026-01-03T10:00:00.000Z", "2026-01-05T10:00:00.000Z"]);
    // COUNT is counted from the start even when the range begins later.
    expect(
      starts(
        rec("FREQ=DAILY;COUNT=3", "2026-01-01T10:00", "UTC"),
        "2026-01-02T12:00:00Z",
        "2026-02-01T00:00:00Z",
      ),
    ).toEqual(["2026-01-03T10:00:00.000Z"]);
    expect(
      starts(
        rec("FREQ=WEEKLY;UNTIL=20260115", "2026-01-01T10:00", "UTC"),
        "2026-01-01T00:00:00Z",
        "2026-02-01T00:00:00Z",
      ),
    ).toEqual(["2026-01-01T10:00:00.000Z", "2026-01-08T10:00:00.000Z", "2026-01-15T10:00:00.000Z"]);
  });

  it("MONTHLY by ordinal weekday and by (negative) month day; a month without the day is skipped", () => {
    expect(
      starts(
        rec("FREQ=MONTHLY;BYDAY=1SU", "2026-01-01T04:00", "UTC"),
        "2026-01-01T00:00:00Z",
        "2026-04-01T00:00:00Z",
      ),
    ).toEqual(["2026-01-04T04:00:00.000Z", "2026-02-01T04:00:00.000Z", "2026-03-01T04:00:00.000Z"]);
    expect(
      starts(
        rec("FREQ=MONTHLY;BYDAY=-1FR", "2026-01-01T04:00", "UTC"),
        "2026-01-01T00:00:00Z",
        "2026-03-01T00:00:00Z",
      ),
    ).toEqual(["2026-01-30T04:00:00.000Z", "2026-02-27T04:00:00.000Z"]);
    expect(
      starts(
        rec("FREQ=MONTHLY;BYMONTHDAY=31", "2026-01-31T04:00", "UTC"),
        "2026-01-01T00:00:00Z",
        "2026-04-01T00:00:00Z",
      ),
    ).toEqual(["2026-01-31T04:00:00.000Z", "2026-03-31T04:00:00.000Z"]);
    expect(
      starts(
        rec("FREQ=MONTHLY;BYMONTHDAY=-1", "2026-01-31T04:00", "UTC"),
        "2026-02-01T00:00:00Z",
        "2026-03-01T00:00:00Z",
      ),
    ).toEqual(["2026-02-28T04:00:00.000Z"]);
  });

  it("refuses what it does not support, with a reason", () => {
    for (const bad of [
      "",
      "FREQ=YEARLY",
      "FREQ=DAILY;BYHOUR=3",
      "FREQ=DAILY;COUNT=2;UNTIL=20260101",
      "INTERVAL=2",
      "FREQ=WEEKLY;BYDAY=1MO",
      "FREQ=DAILY;INTERVAL=0",
      "FREQ=MONTHLY;BYMONTHDAY=0",
      "FREQ=DAILY;FREQ=DAILY",
    ])
      expect(() => parseRule(bad), bad).toThrow(RecurrenceError);
    expect(isTimeZone("Asia/Shanghai")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(iso(localToInstant(Date.UTC(2026, 6, 1, 12), "Asia/Kolkata"))).toBe("2026-07-01T06:30:00.000Z");
  });
});
