import { describe, expect, it } from "vitest";
import { deliver, sampleMessage, testContext, useReceiver } from "../testing/channels.js";
import { pagerdutyChannel } from "./pagerduty.js";

const receiver = useReceiver();
const routing_key = "R0123456789abcdef0123456789ABCDE";
const success = JSON.stringify({ status: "success", message: "Event processed", dedup_key: "x" });

async function sent(kind: Parameters<typeof sampleMessage>[0], severity?: "warning") {
  receiver.answer(202, success);
  const config = { routing_key, ...(severity ? { severity } : {}) };
  const { verdicts } = await deliver(
    pagerdutyChannel,
    sampleMessage(kind),
    config,
    testContext(receiver.base),
  );
  const req = receiver.received.at(-1)!;
  return { verdict: verdicts[0], req, event: JSON.parse(req.body) };
}

describe("pagerduty channel (Events API v2)", () => {
  it("down triggers with the monitor's dedup key and a full payload; 202 success is delivered", async () => {
    const { verdict, req, event } = await sent("down");
    expect(verdict).toEqual({ ok: true });
    expect(req.url).toBe("/v2/enqueue");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(event).toEqual({
      routing_key,
      event_action: "trigger",
      dedup_key: "vantage-mon_01J0ABC",
      client: "Vantage",
      client_url: "https://vantage.example.com/monitors/mon_01J0ABC",
      payload: {
        summary:
          "DOWN: Shop API: Shop API (http https://shop.example.com/health) is down since 2026-07-01 12:34:56 UTC.",
        source: "https://shop.example.com/health",
        severity: "critical",
        timestamp: "2026-07-01T12:34:56.000Z",
        component: "Shop API",
        class: "http",
        custom_details: {
          event_id: "evt_down1",
          kind: "down",
          monitor: {
            id: "mon_01J0ABC",
            name: "Shop API",
            type: "http",
            target: "https://shop.example.com/health",
          },
          error: "connection refused",
          nodes: [
            { node_id: "node-fra", error_code: "connection_refused" },
            { node_id: "node-sin", error_code: null },
          ],
          dashboard_url: "https://vantage.example.com/monitors/mon_01J0ABC",
        },
      },
    });
  });

  it("a reminder triggers on the same key, up resolves it, a test has its own key", async () => {
    const reminder = await sent("reminder", "warning");
    expect(reminder.event).toMatchObject({ event_action: "trigger", dedup_key: "vantage-mon_01J0ABC" });
    expect(reminder.event.payload.severity).toBe("warning");
    const up = await sent("up");
    expect(up.event).toEqual({ routing_key, event_action: "resolve", dedup_key: "vantage-mon_01J0ABC" });
    const test = await sent("test");
    expect(test.event).toMatchObject({ event_action: "trigger", dedup_key: "vantage-test-evt_test1" });
    expect(test.event.payload).toMatchObject({ source: "vantage", summary: expect.stringContaining("test") });
  });

  it("keeps the summary within 1024 characters", () => {
    const message = sampleMessage("down");
    message.monitor!.name = "n".repeat(3000);
    const [req] = pagerdutyChannel.build(message, { routing_key }, testContext(receiver.base));
    const event = JSON.parse(req?.kind === "http" ? req.body : "{}");
    expect(event.payload.summary.length).toBe(1024);
  });

  it("429 and 5xx are retried, 400 fails, a 202 without success fails", async () => {
    const verdictFor = async (status: number, body: string) => {
      receiver.answer(status, body);
      return (
        await deliver(pagerdutyChannel, sampleMessage("down"), { routing_key }, testContext(receiver.base))
      ).verdicts[0];
    };
    expect(await verdictFor(400, '{"status":"invalid event","errors":["x"]}')).toMatchObject({
      ok: false,
      retry: false,
    });
    expect(await verdictFor(429, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(503, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(202, '{"status":"queued"}')).toMatchObject({ ok: false, retry: false });
    expect(await verdictFor(200, success)).toMatchObject({ ok: false });
  });

  it("refuses a routing key that is not 32 characters and an unknown severity", () => {
    const parse = (c: unknown) => pagerdutyChannel.configSchema.safeParse(c).success;
    expect(parse({ routing_key, severity: "info" })).toBe(true);
    expect(parse({ routing_key: "short" })).toBe(false);
    expect(parse({ routing_key: `${routing_key}x` })).toBe(false);
    expect(parse({ routing_key, severity: "fatal" })).toBe(false);
    expect(pagerdutyChannel.secretFields).toEqual(["routing_key"]);
  });
});
