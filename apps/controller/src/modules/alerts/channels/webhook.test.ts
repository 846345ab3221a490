import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { deliver, sampleMessage, testContext, useReceiver } from "../testing/channels.js";
import { webhookChannel } from "./webhook.js";

const receiver = useReceiver();
const secret = `whsec_${randomBytes(32).toString("base64")}`;

describe("webhook channel (Standard Webhooks)", () => {
  it("POSTs the event as JSON, signed so that standardwebhooks' Webhook.verify accepts it", async () => {
    const now = Date.now();
    const { verdicts } = await deliver(
      webhookChannel,
      sampleMessage("down"),
      { url: `${receiver.base}/hooks/vantage`, secret },
      testContext(receiver.base, now),
    );
    expect(verdicts).toEqual([{ ok: true }]);
    const [req] = receiver.received;
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("/hooks/vantage");
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["webhook-id"]).toBe("evt_down1");
    expect(req?.headers["webhook-timestamp"]).toBe(String(Math.floor(now / 1000)));
    expect(req?.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    const payload = new Webhook(secret).verify(req!.body, req!.headers as Record<string, string>);
    expect(payload).toMatchObject({
      type: "monitor.down",
      timestamp: "2026-07-01T12:34:56.000Z",
      data: {
        event_id: "evt_down1",
        kind: "down",
        monitor: { id: "mon_01J0ABC", name: "Shop API", type: "http" },
        error: "connection refused",
        nodes: [{ node_id: "node-fra", error_code: "connection_refused" }, { node_id: "node-sin" }],
        title: "DOWN: Shop API",
      },
    });
  });

  it("a signature made with another secret, or a changed body, does not verify", async () => {
    await deliver(
      webhookChannel,
      sampleMessage("up"),
      { url: `${receiver.base}/h`, secret },
      testContext(receiver.base),
    );
    const req = receiver.received[0]!;
    const headers = req.headers as Record<string, string>;
    const other = new Webhook(`whsec_${randomBytes(32).toString("base64")}`);
    expect(() => other.verify(req.body, headers)).toThrow(/signature/i);
    expect(() =>
      new Webhook(secret).verify(req.body.replace("monitor.up", "monitor.down"), headers),
    ).toThrow();
    expect(JSON.parse(req.body).type).toBe("monitor.up");
  });

  it("names each kind: monitor.down, monitor.up, monitor.reminder, channel.test", () => {
    const ctx = testContext(receiver.base);
    const types = (["down", "up", "reminder", "test"] as const).map((kind) => {
      const [req] = webhookChannel.build(sampleMessage(kind), { url: "https://example.com/h", secret }, ctx);
      return req?.kind === "http" ? JSON.parse(req.body).type : undefined;
    });
    expect(types).toEqual(["monitor.down", "monitor.up", "monitor.reminder", "channel.test"]);
  });

  it("2xx is delivered, 410 fails for good, any other answer is retried", async () => {
    const config = { url: `${receiver.base}/h`, secret };
    const ctx = testContext(receiver.base);
    const verdictFor = async (status: number) => {
      receiver.answer(status, "nope");
      return (await deliver(webhookChannel, sampleMessage("down"), config, ctx)).verdicts[0];
    };
    expect(await verdictFor(204)).toEqual({ ok: true });
    expect(await verdictFor(410)).toMatchObject({ ok: false, retry: false });
    expect(await verdictFor(503)).toMatchObject({ ok: false, retry: true, reason: "HTTP 503: nope" });
    expect(await verdictFor(429)).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(404)).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(302)).toMatchObject({ ok: false, retry: true });
  });

  it("refuses a bad URL and a secret not in whsec_ form", () => {
    const parse = (config: unknown) => webhookChannel.configSchema.safeParse(config).success;
    expect(parse({ url: "https://example.com/h", secret })).toBe(true);
    expect(parse({ url: "ftp://example.com/h", secret })).toBe(false);
    expect(parse({ url: "not a url", secret })).toBe(false);
    expect(parse({ url: "https://example.com/h", secret: randomBytes(32).toString("base64") })).toBe(false);
    expect(parse({ url: "https://example.com/h", secret: "whsec_c2hvcnQ=" })).toBe(false); // 5 bytes
    expect(parse({ url: "https://example.com/h", secret: "whsec_not base64!" })).toBe(false);
    expect(parse({ url: "https://example.com/h", secret, extra: 1 })).toBe(false);
    expect(webhookChannel.secretFields).toEqual(["secret"]);
  });
});
