import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime.js";
import { startEmbeddedTestRuntime } from "../../testing/embedded-runtime.js";
import { loopbackSite } from "../../testing/loopback-site.js";
import { until } from "../../testing/until.js";

/**
 * The notifier polls every VANTAGE_ALERTS_POLL_MS, and four times as long while nothing waits; a state
 * change the monitors write wakes it at once. Here the poll is a minute: only the wake can make the
 * change's alert round within seconds.
 */
describe("the notifier wakes on a state change", () => {
  let runtime: Runtime;
  let dir: string;
  const site = loopbackSite();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vantage-notifier-wake-"));
    await site.start();
    runtime = await startEmbeddedTestRuntime(dir, { VANTAGE_ALERTS_POLL_MS: "60000" });
  }, 60_000);
  afterAll(async () => {
    await runtime?.stop();
    await site.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a monitor's first verdict is taken by the notifier within seconds, not at its next poll", async () => {
    const reg = await runtime.app.request("/v1/auth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "notifier-wake@example.com", password: "correct horse battery" }),
    });
    const token = ((await reg.json()) as { data: { access_token: string } }).data.access_token;
    // The notifier's first round ran at start and found nothing: its next poll is minutes away.
    const created = await runtime.app.request("/v1/monitors", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "wake", type: "http", url: site.url, interval: 1 }),
    });
    expect(created.status).toBe(201);
    const monitor = ((await created.json()) as { data: { id: string } }).data;
    const k = runtime.db.kysely;
    const change = () =>
      k
        .selectFrom("monitor_state_changes")
        .select(["to_state", "alerted_at"])
        .where("monitor_id", "=", monitor.id)
        .executeTakeFirst();
    // unknown → up: written by the monitors' writer, which notifies; marked alerted (no policy, no event).
    // Without the wake it would wait for the poll a minute (four, once quiet) after the start's.
    await until(
      "the change is taken by the notifier",
      async () => (await change())?.alerted_at != null,
      30_000,
    );
    expect((await change())?.to_state).toBe("up");
  }, 60_000);
});
