import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@vantage/testing";
import { sql } from "kysely";
import { loadConfig } from "../apps/controller/src/config.js";
import { jsonb } from "../apps/controller/src/db/json.js";
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
 */
const events = Number(process.env.BENCH_EVENTS ?? 5000);
const samples = Number(process.env.BENCH_SAMPLES ?? 200);

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

// 1. throughput
const t0 = Date.now();
const rows = Array.from({ length: events }, (_, i) => change(new Date(t0 + i)));
for (let i = 0; i < rows.length; i += 1000)
  await k
    .insertInto("monitor_state_changes")
    .values(rows.slice(i, i + 1000))
    .execute();
await waitFor(events, 600_000);
const throughputS = (Date.now() - t0) / 1000;
const delivered = arrivals.size;

// 2. latency
arrivals.clear();
const inserted = new Map<string, number>();
for (let i = 0; i < samples; i++) {
  const at = Date.now();
  const c = change(new Date(at));
  await k.insertInto("monitor_state_changes").values(c).execute();
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

await runtime.stop();
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
process.exit(0);
