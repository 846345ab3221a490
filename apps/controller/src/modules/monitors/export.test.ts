import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { newUser, type TestUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { EXPORT_PAGE } from "./export.js";

const MIN = 60_000;
const iso = (t: number) => new Date(t).toISOString();

/** A monitor's runs exported as NDJSON and CSV, streamed; the per-account OpenMetrics endpoint. */
describe.each(dbKinds)("monitor export and OpenMetrics on %s", (kind) => {
  const db = useTestDb(kind);

  const get = (t: TestApp, u: TestUser | null, path: string, headers: Record<string, string> = {}) =>
    t.app.request(path, { headers: { ...(u ? u.headers : {}), ...headers } });

  describe.each(forms)("form %s", (form) => {
    it("NDJSON and CSV by format or Accept, ranges, every page in order; 400 and 404", async () => {
      const t = db.app(form);
      const k = t.db.kysely;
      const u = await newUser(t, `exp-${form}`);
      const other = await newUser(t, `exp-other-${form}`);
      const mon = `mon_exp_${kind}_${form}`;
      const seq = await insertMonitor(k, mon, u.userId);
      const base = Date.UTC(2026, 10, 28, 0, 0);
      await k
        .insertInto("monitor_runs")
        .values([
          {
            monitor_seq: seq,
            slot: new Date(base),
            node_id: "n1",
            success: true,
            latency_ms: 12.5,
            error_code: null,
            status_code: 200,
          },
          {
            monitor_seq: seq,
            slot: new Date(base),
            node_id: "n2",
            success: false,
            latency_ms: null,
            error_code: 'odd,"code"',
            status_code: null,
          },
          {
            monitor_seq: seq,
            slot: new Date(base + MIN),
            node_id: "n1",
            success: true,
            latency_ms: 9,
            error_code: null,
            status_code: 200,
          },
        ])
        .execute();
      const nd = await get(t, u, `/v1/monitors/${mon}/export?format=ndjson`);
      expect(nd.status).toBe(200);
      expect(nd.headers.get("content-type")).toBe("application/x-ndjson");
      const lines = (await nd.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines).toEqual([
        {
          slot: iso(base),
          node_id: "n1",
          success: true,
          latency_ms: 12.5,
          error_code: null,
          status_code: 200,
        },
        {
          slot: iso(base),
          node_id: "n2",
          success: false,
          latency_ms: null,
          error_code: 'odd,"code"',
          status_code: null,
        },
        {
          slot: iso(base + MIN),
          node_id: "n1",
          success: true,
          latency_ms: 9,
          error_code: null,
          status_code: 200,
        },
      ]);
      const csv = await get(t, u, `/v1/monitors/${mon}/export?to=${iso(base + MIN)}`, { accept: "text/csv" });
      expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(await csv.text()).toBe(
        "slot,node_id,success,latency_ms,error_code,status_code\r\n" +
          `${iso(base)},n1,true,12.5,,200\r\n` +
          `${iso(base)},n2,false,,"odd,""code""",\r\n`,
      );
      const later = await get(
        t,
        u,
        `/v1/monitors/${mon}/export?from=${encodeURIComponent(iso(base + MIN).replace("Z", "+00:00"))}`,
      );
      expect((await later.text()).trim().split("\n")).toHaveLength(1);

      const bad = await t.call("GET", `/v1/monitors/${mon}/export?from=${iso(base)}&to=${iso(base)}`, {
        headers: u.headers,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe("query.from");
      expect(
        (await t.call("GET", `/v1/monitors/${mon}/export?format=xml`, { headers: u.headers })).status,
      ).toBe(400);
      expect((await t.call("GET", `/v1/monitors/${mon}/export`, { headers: other.headers })).status).toBe(
        404,
      );
      expect((await t.call("GET", `/v1/monitors/${mon}/export`)).status).toBe(401);

      // More than a page: every row once, in order.
      const n = EXPORT_PAGE + 150;
      await sql`
        insert into monitor_runs (monitor_seq, slot, node_id, success, latency_ms)
        select ${seq}, ${new Date(base + 10 * MIN)}::timestamptz + i * interval '1 second', 'n1', true, i
        from generate_series(1, ${n}) as g(i)`.execute(k);
      const all = await get(t, u, `/v1/monitors/${mon}/export?from=${iso(base + 10 * MIN)}`);
      const rows = (await all.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { latency_ms: number });
      expect(rows).toHaveLength(n);
      expect(rows.every((r, i) => r.latency_ms === i + 1)).toBe(true);
    });
  });

  it("OpenMetrics: up, latency and 24 h uptime per monitor, with the account's own token only", async () => {
    const t = db.app("a");
    const k = t.db.kysely;
    const u = await newUser(t, "om");
    const up = `mon_om_up_${kind}`;
    const down = `mon_om_down_${kind}`;
    const seqUp = await insertMonitor(k, up, u.userId, { name: 'site "a"', state: "up" });
    await insertMonitor(k, down, u.userId, { name: "b", state: "down" });
    const now = Date.now();
    await k
      .insertInto("monitor_runs")
      .values([
        {
          monitor_seq: seqUp,
          slot: new Date(now - 2 * MIN),
          node_id: "n1",
          success: false,
          latency_ms: null,
          error_code: "x",
          status_code: null,
        },
        {
          monitor_seq: seqUp,
          slot: new Date(now - MIN),
          node_id: "n1",
          success: true,
          latency_ms: 20,
          error_code: null,
          status_code: null,
        },
        {
          monitor_seq: seqUp,
          slot: new Date(now - MIN),
          node_id: "n2",
          success: true,
          latency_ms: 40,
          error_code: null,
          status_code: null,
        },
      ])
      .execute();
    expect((await get(t, null, "/v1/openmetrics")).status).toBe(401);
    expect((await get(t, u, "/v1/openmetrics")).status).toBe(401); // an API credential is not the scrape token
    const made = await t.call("POST", "/v1/metrics-token", { headers: u.headers });
    expect(made.status, made.text).toBe(201);
    const token = made.body.data.token as string;
    expect(token).toMatch(/^vmt_/);
    const row = await k
      .selectFrom("metrics_tokens")
      .selectAll()
      .where("owner_id", "=", u.userId)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).not.toContain(token.slice(4));
    const scrape = await get(t, null, "/v1/openmetrics", { authorization: `Bearer ${token}` });
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("content-type")).toBe(
      "application/openmetrics-text; version=1.0.0; charset=utf-8",
    );
    const text = await scrape.text();
    const labels = (id: string, name: string, type = "http") =>
      `monitor_id="${id}",name="${name}",type="${type}"`;
    expect(text).toContain(`vantage_monitor_up{${labels(up, 'site \\"a\\"')}} 1\n`);
    expect(text).toContain(`vantage_monitor_up{${labels(down, "b")}} 0\n`);
    expect(text).toContain(`vantage_monitor_latency_seconds{${labels(up, 'site \\"a\\"')}} 0.03\n`);
    expect(text).toContain(`vantage_monitor_uptime_ratio{${labels(up, 'site \\"a\\"')},window="24h"} 0.5\n`);
    expect(text.endsWith("# EOF\n")).toBe(true);
    const info = await t.call("GET", "/v1/metrics-token", { headers: u.headers });
    expect(info.body.data.last_used_at).not.toBeNull();

    const again = await t.call("POST", "/v1/metrics-token", { headers: u.headers });
    expect((await get(t, null, "/v1/openmetrics", { authorization: `Bearer ${token}` })).status).toBe(401);
    const fresh = again.body.data.token as string;
    expect((await get(t, null, "/v1/openmetrics", { authorization: `Bearer ${fresh}` })).status).toBe(200);
    expect((await t.call("DELETE", "/v1/metrics-token", { headers: u.headers })).status).toBe(200);
    expect((await get(t, null, "/v1/openmetrics", { authorization: `Bearer ${fresh}` })).status).toBe(401);
    expect((await t.call("GET", "/v1/metrics-token", { headers: u.headers })).status).toBe(404);
  });
});
