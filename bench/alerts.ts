import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@vantage/testing";
import { sql } from "kysely";
import { loadConfig } from "../apps/controller/src/config.js";
import { jsonb } from "../apps/controller/src/db/json.js";
import { notify, STATE_CHANGES_CHANNEL } from "../apps/controller/src/db/notify.js";
import { SecretKey } from "../apps/controller/src/lib/secret-box.js";
import { createLogger } from "../apps/controller/src/logger.js";
import { startRuntime } from "../apps/controller/src/runtime.js";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:alerts`: alert delivery through the outbox to a loopback webhook (Standard Webhooks signed),
 * one controller with the notifier role on PostgreSQL (polling every 500 ms, the default).
 * 1. throughput: BENCH_EVENTS (default 5,000) state changes inserted at once, each one event and one
 *    delivery; deliveries/s until the receiver has them all;
 * 2. latency: BENCH_SAMPLES (default 200) state changes inserted one at a time, 20 ms apart; the time from the
 *    insert (the change's slot) to the webhook's arrival, p50/p99. Aim: p99 < 1 s.
 * 3. receiver away (issue #33): a second channel's receiver stops listening for BENCH_AWAY seconds (default
 *    "10,60": one run each) while a burst of BENCH_AWAY_BURST (default 200) alerts is queued for it; then it
 *    listens again. Printed: the time from its return to the first queued delivery (the probe: at most the
 *    probe interval, 4 s, plus a poll) and to each (p50/p99/max; aim p99 ≤ 5 s),
 *    whether each came once and oldest first, and the attempts per minute made against the dead receiver
 *    (from the deliveries' logs).
 */
const events = Number(process.env.BENCH_EVENTS ?? 5000);
const samples = Number(process.env.BENCH_SAMPLES ?? 200);
const awayRuns = (process.env.BENCH_AWAY ?? "10,60")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const awayBurst = Number(process.env.BENCH_AWAY_BURST ?? 200);

const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    // The Standard Webhooks id is the alert event's id.
    arrivals.set(String(req.headers["webhook-id"]), Date.now());
    res.end();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const tdb = await createTestDatabase();
const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-alerts-"));
const runtime = await startRuntime(
  loadConfig({
    PORT: "0",
    DATABASE_URL: tdb.url,
    VANTAGE_DATA_DIR: dataDir,
    VANTAGE_JWT_SECRET: "alerts-bench-jwt-secret-0123456789abcdef",
    VANTAGE_ROLES: "notifier",
    VANTAGE_SECRET_KEY: SecretKey.generate().toBase64(),
    VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
    VANTAGE_LOG_LEVEL: "warn",
    VANTAGE_ACCESS_LOG: "false",
  }),
  createLogger("warn"),
);
const k = runtime.db.kysely;
const box = runtime.modules.alerts.box;
if (!box) throw new Error("no secret box");
await k
  .insertInto("users")
  .values({ id: "usr_alerts_bench", email: "alerts-bench@example.com", password_hash: "x" } as never)
  .execute();
await k
  .insertInto("monitors")
  .values({
    id: "mon_alerts_bench",
    owner_id: "usr_alerts_bench",
    name: "bench",
    type: "http",
    target: "https://example.com/",
    config: jsonb<string>({}),
    interval_s: 60,
    status: "paused",
    next_run_at: new Date(Date.now() + 86_400_000),
  })
  .execute();
await k
  .insertInto("alert_channels")
  .values({
    id: "chn_bench",
    owner_id: "usr_alerts_bench",
    name: "hook",
    type: "webhook",
    config: jsonb<string>({ url: hookUrl }),
    secrets: box.sealJson(
      { secret: `whsec_${Buffer.alloc(32, 5).toString("base64")}` },
      "alert_channels:chn_bench",
    ),
  })
  .execute();
await k
  .insertInto("alert_policies")
  .values({
    id: "pol_bench",
    owner_id: "usr_alerts_bench",
    name: "b",
    monitor_id: "mon_alerts_bench",
    channel_ids: ["chn_bench"],
  })
  .execute();

// The away phase's own monitor, channel and receiver, so the other phases' receiver never stops.
const awayArrivals: { id: string; at: number }[] = [];
const awayReceiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    awayArrivals.push({ id: String(req.headers["webhook-id"]), at: Date.now() });
    res.end();
  });
});
await new Promise<void>((r) => awayReceiver.listen(0, "127.0.0.1", r));
const awayPort = (awayReceiver.address() as AddressInfo).port;
await k
  .insertInto("monitors")
  .values({
    id: "mon_alerts_away",
    owner_id: "usr_alerts_bench",
    name: "away",
    type: "http",
    target: "https://example.com/",
    config: jsonb<string>({}),
    interval_s: 60,
    status: "paused",
    next_run_at: new Date(Date.now() + 86_400_000),
  })
  .execute();
await k
  .insertInto("alert_channels")
  .values({
    id: "chn_away",
    owner_id: "usr_alerts_bench",
    name: "away",
    type: "webhook",
    config: jsonb<string>({ url: `http://127.0.0.1:${awayPort}/hook` }),
    secrets: box.sealJson(
      { secret: `whsec_${Buffer.alloc(32, 6).toString("base64")}` },
      "alert_channels:chn_away",
    ),
  })
  .execute();
await k
  .insertInto("alert_policies")
  .values({
    id: "pol_away",
    owner_id: "usr_alerts_bench",
    name: "a",
    monitor_id: "mon_alerts_away",
    channel_ids: ["chn_away"],
  })
  .execute();

/** Changes alternating down/up, so every one alerts (down, then up after down). */
let seq = 0;
const change = (slot: Date) => ({
  id: `msc_bench_${seq}`,
  monitor_id: "mon_alerts_bench",
  slot,
  from_state: (seq % 2 === 0 ? "up" : "down") as "up" | "down",
  to_state: (seq++ % 2 === 0 ? "down" : "up") as "up" | "down",
});
const waitFor = async (n: number, ms: number) => {
  const end = Date.now() + ms;
  while (arrivals.size < n && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

/** State changes written as the monitors' writer writes them: with the notice that wakes the notifiers. */
async function insertChanges(
  values: Parameters<ReturnType<typeof k.insertInto<"monitor_state_changes">>["values"]>[0],
) {
  await k.transaction().execute(async (tx) => {
    await tx.insertInto("monitor_state_changes").values(values).execute();
    await notify(tx, STATE_CHANGES_CHANNEL, "");
  });
}

// 1. throughput
const t0 = Date.now();
const rows = Array.from({ length: events }, (_, i) => change(new Date(t0 + i)));
for (let i = 0; i < rows.length; i += 1000) await insertChanges(rows.slice(i, i + 1000));
await waitFor(events, 600_000);
const throughputS = (Date.now() - t0) / 1000;
const delivered = arrivals.size;

// 2. latency
arrivals.clear();
const inserted = new Map<string, number>();
for (let i = 0; i < samples; i++) {
  const at = Date.now();
  const c = change(new Date(at));
  await insertChanges([c]);
  inserted.set(c.id, at);
  await new Promise((r) => setTimeout(r, 20));
}
await waitFor(samples, 60_000);
const { rows: byEvent } = await sql<{ id: string; state_change_id: string }>`
  select id, state_change_id from alert_events where state_change_id = any(cast(${[...inserted.keys()]} as text[]))`.execute(
  k,
);
const lat = byEvent
  .map((e) => (arrivals.get(e.id) ?? Number.NaN) - (inserted.get(e.state_change_id) ?? Number.NaN))
  .filter((v) => Number.isFinite(v))
  .sort((a, b) => a - b);
const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))] ?? Number.NaN;

// 3. receiver away
let awaySeq = 0;
const awayResults: { awayS: number; row: string[] }[] = [];
for (const awayS of awayRuns) {
  awayArrivals.length = 0;
  awayReceiver.closeAllConnections();
  await new Promise((r) => awayReceiver.close(r));
  const goneAt = Date.now();
  const burst = Array.from({ length: awayBurst }, (_, i) => {
    const down = awaySeq++ % 2 === 0;
    return {
      id: `msc_away_${awaySeq}`,
      monitor_id: "mon_alerts_away",
      slot: new Date(goneAt + i),
      from_state: (down ? "up" : "down") as "up" | "down",
      to_state: (down ? "down" : "up") as "up" | "down",
    };
  });
  await insertChanges(burst);
  await new Promise((r) => setTimeout(r, Math.max(0, goneAt + awayS * 1000 - Date.now())));
  await new Promise<void>((r) => awayReceiver.listen(awayPort, "127.0.0.1", r));
  const backAt = Date.now();
  const end = backAt + 120_000;
  while (awayArrivals.length < awayBurst && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 1000)); // anything sent twice would arrive meanwhile
  const { rows: evs } = await sql<{ id: string; slot: Date }>`
    select e.id, c.slot from alert_events e join monitor_state_changes c on c.id = e.state_change_id
    where c.id = any(cast(${burst.map((b) => b.id)} as text[]))`.execute(k);
  const slotOf = new Map(evs.map((e) => [e.id, new Date(e.slot).getTime()]));
  const mine = awayArrivals.filter((a) => slotOf.has(a.id));
  const firstArrival = new Map<string, number>();
  for (const a of mine) if (!firstArrival.has(a.id)) firstArrival.set(a.id, a.at);
  const afterReturn = [...firstArrival.values()].map((at) => at - backAt).sort((x, y) => x - y);
  const q = (p: number) =>
    afterReturn[Math.min(afterReturn.length - 1, Math.floor((p / 100) * afterReturn.length))] ?? Number.NaN;
  // Oldest first: arrivals in the order of their changes' slots (the failed probes never arrived).
  const order = mine.map((a) => slotOf.get(a.id) ?? 0);
  const inOrder = order.every((v, i) => i === 0 || v >= (order[i - 1] ?? 0));
  const { rows: tries } = await sql<{ n: string }>`
    select count(*) as n from alert_deliveries d, jsonb_array_elements(d.log) a
    where d.channel_id = 'chn_away' and (a->>'ok')::boolean = false
      and (a->>'at')::timestamptz >= ${new Date(goneAt)} and (a->>'at')::timestamptz < ${new Date(backAt)}`.execute(
    k,
  );
  const failedTries = Number(tries[0]?.n ?? 0);
  awayResults.push({
    awayS,
    row: [
      `${awayS} s`,
      `${firstArrival.size} of ${awayBurst}`,
      String(mine.length - firstArrival.size),
      inOrder ? "yes" : "no",
      (afterReturn[0] ?? Number.NaN).toFixed(0),
      q(50).toFixed(0),
      q(99).toFixed(0),
      (afterReturn.at(-1) ?? Number.NaN).toFixed(0),
      `${failedTries} (${(failedTries / (awayS / 60)).toFixed(1)}/min)`,
    ],
  });
}

await runtime.stop();
awayReceiver.closeAllConnections();
await new Promise((r) => awayReceiver.close(r));
receiver.closeAllConnections();
await new Promise((r) => receiver.close(r));
await tdb.drop();
rmSync(dataDir, { recursive: true, force: true });
printTable(
  ["alert delivery (PostgreSQL, 1 notifier, loopback webhook)", "value"],
  [
    ["events delivered (burst)", `${delivered} of ${events}`],
    ["deliveries/s (burst: change → event → signed webhook)", (delivered / throughputS).toFixed(0)],
    ["state change → delivery p50 ms (one at a time)", pct(50).toFixed(0)],
    ["state change → delivery p99 ms", pct(99).toFixed(0)],
    ["samples measured", `${lat.length} of ${samples}`],
  ],
);
if (awayResults.length > 0)
  printTable(
    [
      `receiver away under a burst of ${awayBurst}`,
      "delivered",
      "twice",
      "oldest first",
      "return → first ms",
      "return → each p50 ms",
      "p99 ms",
      "max ms",
      "attempts while away",
    ],
    awayResults.map((r) => r.row),
  );
process.exit(0);
