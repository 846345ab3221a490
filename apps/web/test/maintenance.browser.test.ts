import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonb } from "../../controller/src/db/json.js";
import { type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * Issue #29 items 4 and 6 on the alerts page: a recurring maintenance window added through its form (an
 * RRULE the API refuses is shown by the field), listed with its rule and deleted; a down alert
 * acknowledged with its button.
 */
describe("maintenance windows and acknowledgement from the dashboard, Form B", () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ form: "b" });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
  });

  it("adds a recurring window, shows a refused rule by its field, deletes it; acknowledges a down alert", async () => {
    const email = "maintenance-web@example.com";
    const page = await d.page();
    await signIn(page, d.url, email);
    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    await page.getByRole("heading", { name: "Alerts", level: 1 }).waitFor();
    const form = page.getByRole("form", { name: "Add a maintenance window" });
    await form.getByLabel("Title").fill("Sunday patching");
    await form.getByLabel("When").selectOption("recurring");
    await form.getByLabel("Rule (RRULE)").fill("FREQ=YEARLY");
    await form.getByLabel("First start (local time)").fill("2026-03-01T02:30");
    await form.getByLabel("Time zone").fill("Europe/Berlin");
    await form.getByLabel("Length in minutes").fill("90");
    await form.getByRole("button", { name: "Add window" }).click();
    await form
      .locator('[data-field-error="body.recurrence.rrule"]', {
        hasText: "FREQ must be DAILY, WEEKLY or MONTHLY",
      })
      .waitFor();
    await form.getByLabel("Rule (RRULE)").fill("FREQ=WEEKLY;BYDAY=SU");
    await form.getByRole("button", { name: "Add window" }).click();
    const row = page.getByRole("row", { name: /Sunday patching/ });
    await row.getByText("FREQ=WEEKLY;BYDAY=SU (Europe/Berlin, 90 min)").waitFor();
    await row.getByText("All monitors").waitFor();
    await row.getByRole("button", { name: "Delete Sunday patching" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).last().click();
    await row.waitFor({ state: "detached" });

    // A down alert of this account, not yet acknowledged: its button acknowledges it.
    const k = d.runtime.db.kysely;
    const owner = (
      await k.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow()
    ).id;
    await k
      .insertInto("monitors")
      .values({
        id: "mon_web_ack",
        owner_id: owner,
        name: "shop",
        type: "http",
        target: "https://example.com/",
        config: jsonb<string>({}),
        interval_s: 60,
        status: "paused",
        next_run_at: new Date("2100-01-01T00:00:00Z"),
      })
      .execute();
    await k
      .insertInto("alert_policies")
      .values({ id: "pol_web_ack", owner_id: owner, name: "p", monitor_id: "mon_web_ack" })
      .execute();
    await k
      .insertInto("alert_events")
      .values({
        id: "evt_web_ack",
        owner_id: owner,
        policy_id: "pol_web_ack",
        monitor_id: "mon_web_ack",
        type: "down",
        state_change_id: "msc_web_ack",
        detail: jsonb<string>({ from: "up", to: "down", nodes: [] }),
      })
      .execute();
    await page.reload();
    await page.getByRole("button", { name: "Acknowledge" }).click();
    await page.getByText("acknowledged").waitFor();
    const ev = await k
      .selectFrom("alert_events")
      .select(["acknowledged_at", "acknowledged_by"])
      .where("id", "=", "evt_web_ack")
      .executeTakeFirstOrThrow();
    expect(ev.acknowledged_by).toBe(owner);
    expect(ev.acknowledged_at).not.toBeNull();
    // The one refused rule is the only failed request.
    expect(page.errors).toEqual([
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
  }, 120_000);
});
