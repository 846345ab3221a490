import { beforeAll, describe, expect, it } from "vitest";
import { markVerified, newUser } from "../../testing/accounts.js";
import { dbKinds, forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { makeEvents } from "./events.js";
import { alertsApiHelpers, whsec } from "./testing/alerts-api.js";

/**
 * How an alert channel's deliveries go, through the API: the delivery state its GET and the list answer
 * (failing, since when, the last error, the next attempt, what waits), and the test endpoint's outcome as
 * data.
 */
describe.each(dbKinds)("alerts API: channels on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      // The test endpoint sends to a loopback port that refuses: private targets allowed, as on a LAN.
      t = db.app(form, {
        VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
        VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { alert_channels: 50 } }),
      });
    });
    const { call, createChannel, createMonitor } = alertsApiHelpers(() => t, form);

    it("GET and the list say how the channel's deliveries go: failing, since when, the last error, the next attempt, what waits", async () => {
      const u = await newUser(t);
      const created = await createChannel(u, "webhook");
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      const well = {
        failing: false,
        failing_since: null,
        next_attempt_at: null,
        last_error: null,
        last_error_at: null,
        queued: 0,
      };
      expect(created.body.data.delivery).toEqual(well);
      expect((await call(u, "GET", `/v1/alert-channels/${id}`)).body.data.delivery).toEqual(well);

      // Two alerts queued while the notifier has found the receiver away (as deliver.ts records it).
      const monitor = await createMonitor(u);
      const policy = await call(u, "POST", "/v1/alert-policies", {
        name: "p",
        monitor_id: monitor,
        channel_ids: [id],
      });
      expect(policy.status, policy.text).toBe(201);
      const k = t.db.kysely;
      for (const [i, [from, to]] of [
        ["up", "down"],
        ["down", "up"],
      ].entries())
        await k
          .insertInto("monitor_state_changes")
          .values({
            id: `msc_view_${form}_${kind}_${i}`,
            monitor_id: monitor,
            slot: new Date(Date.now() + i),
            from_state: from as "up",
            to_state: to as "down",
          })
          .execute();
      await makeEvents(k);
      const since = new Date("2026-11-26T10:00:00.000Z");
      const next = new Date("2026-11-26T10:00:04.000Z");
      await k
        .updateTable("alert_channels")
        .set({
          failing_since: since,
          failures: 3,
          retry_at: next,
          last_error: "HTTP 503: busy",
          last_error_at: since,
        })
        .where("id", "=", id)
        .execute();
      const failing = {
        failing: true,
        failing_since: since.toISOString(),
        next_attempt_at: next.toISOString(),
        last_error: "HTTP 503: busy",
        last_error_at: since.toISOString(),
        queued: 2,
      };
      expect((await call(u, "GET", `/v1/alert-channels/${id}`)).body.data.delivery).toEqual(failing);
      const list = await call(u, "GET", "/v1/alert-channels");
      expect(list.body.data.items.find((c: { id: string }) => c.id === id).delivery).toEqual(failing);

      // Recovered: not failing, nothing next; the last error stays for the record.
      await k
        .updateTable("alert_channels")
        .set({ failing_since: null, failures: 0, retry_at: null })
        .where("id", "=", id)
        .execute();
      await k.updateTable("alert_deliveries").set({ status: "sent" }).where("channel_id", "=", id).execute();
      expect((await call(u, "GET", `/v1/alert-channels/${id}`)).body.data.delivery).toEqual({
        ...well,
        last_error: "HTTP 503: busy",
        last_error_at: since.toISOString(),
      });
    });

    it("the test endpoint answers the outcome as data", async () => {
      const u = await newUser(t);
      await markVerified(t, u.userId);
      const hook = await call(u, "POST", "/v1/alert-channels", {
        name: "local",
        type: "webhook",
        config: { url: "http://127.0.0.1:9/hook", secret: whsec },
      });
      const res = await call(u, "POST", `/v1/alert-channels/${hook.body.data.id}/test`);
      expect(res.status, res.text).toBe(200);
      const outcome = res.body.data;
      expect(typeof outcome.ok).toBe("boolean");
      expect(outcome.status === null || Number.isInteger(outcome.status)).toBe(true);
      expect(outcome.ok ? outcome.reason === null : typeof outcome.reason === "string").toBe(true);
      for (const k of Object.keys(outcome)) expect(["ok", "status", "reason", "attempts"]).toContain(k);
      expect(res.text).not.toContain(whsec);
    });
  });
});
