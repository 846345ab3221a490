import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonb } from "../../db/json.js";
import type { Runtime } from "../../runtime.js";
import { startEmbeddedTestRuntime } from "../../testing/embedded-runtime.js";
import { loopbackSite } from "../../testing/loopback-site.js";
import { until } from "../../testing/until.js";

/**
 * Monitor → state change → alert event → delivery, in embedded mode with every role: a site goes down and
 * comes back; a loopback webhook receives exactly one signed `monitor.down` and one `monitor.up`.
 */
describe("alerts from a monitor to a webhook (embedded mode)", () => {
  let runtime: Runtime;
  let dir: string;
  let hook: Server;
  let hookUrl = "";
  const received: { type: string; id: string }[] = [];
  const site = loopbackSite();
  let headers: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vantage-alerts-flow-"));
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        received.push({
          type: (JSON.parse(body) as { type: string }).type,
          id: String(req.headers["webhook-id"]),
        });
        res.end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    runtime = await startEmbeddedTestRuntime(dir, { VANTAGE_ALERTS_POLL_MS: "100" });
    await site.start();
    const reg = await runtime.app.request("/v1/auth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "alerts-flow@example.com", password: "correct horse battery" }),
    });
    headers = {
      authorization: `Bearer ${((await reg.json()) as { data: { access_token: string } }).data.access_token}`,
      "content-type": "application/json",
    };
  }, 60_000);
  afterAll(async () => {
    await site.stop();
    await runtime?.stop();
    hook?.closeAllConnections();
    await new Promise((r) => hook?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("one down and one up message per channel, signed, each once", async () => {
    const created = await runtime.app.request("/v1/monitors", {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "flow", type: "http", url: site.url, interval: 1 }),
    });
    const monitor = ((await created.json()) as { data: { id: string } }).data;
    const k = runtime.db.kysely;
    const owner = (
      await k.selectFrom("monitors").select("owner_id").where("id", "=", monitor.id).executeTakeFirstOrThrow()
    ).owner_id;
    const box = runtime.modules.alerts.box;
    if (!box) throw new Error("embedded mode has a secret key");
    const channelId = "ach_flow";
    await k
      .insertInto("alert_channels")
      .values({
        id: channelId,
        owner_id: owner,
        name: "hook",
        type: "webhook",
        config: jsonb<string>({ url: hookUrl }),
        secrets: box.sealJson(
          { secret: `whsec_${Buffer.alloc(32, 9).toString("base64")}` },
          `alert_channels:${channelId}`,
        ),
      })
      .execute();
    await k
      .insertInto("alert_policies")
      .values({
        id: "apl_flow",
        owner_id: owner,
        name: "flow",
        monitor_id: monitor.id,
        channel_ids: [channelId],
      })
      .execute();
    const state = async () =>
      (await k.selectFrom("monitors").select("state").where("id", "=", monitor.id).executeTakeFirstOrThrow())
        .state;
    await until("up", async () => (await state()) === "up");
    expect(received).toEqual([]); // the first verdict alerts nobody

    await site.stop();
    await until("a down message", () => received.length >= 1);
    await site.start();
    await until("an up message", () => received.length >= 2);
    await new Promise((r) => setTimeout(r, 1500));
    expect(received.map((r) => r.type)).toEqual(["monitor.down", "monitor.up"]);
    expect(new Set(received.map((r) => r.id)).size).toBe(2);
    const deliveries = await k.selectFrom("alert_deliveries").select(["status", "attempts"]).execute();
    expect(deliveries).toEqual([
      { status: "sent", attempts: 1 },
      { status: "sent", attempts: 1 },
    ]);
  }, 60_000);
});
