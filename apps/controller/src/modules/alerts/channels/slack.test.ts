import { describe, expect, it } from "vitest";
import { deliver, sampleMessage, testContext, useReceiver } from "../testing/channels.js";
import { slackChannel } from "./slack.js";

const receiver = useReceiver();
const config = () => ({ webhook_url: `${receiver.base}/services/T000/B000/XXXX` });

describe("slack channel (incoming webhook)", () => {
  it("POSTs text and a Block Kit mrkdwn section; Slack's `ok` is delivered", async () => {
    const { verdicts } = await deliver(
      slackChannel,
      sampleMessage("down"),
      config(),
      testContext(receiver.base),
    );
    expect(verdicts).toEqual([{ ok: true }]);
    const [req] = receiver.received;
    expect(req?.url).toBe("/services/T000/B000/XXXX");
    expect(req?.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(req!.body);
    expect(body.text).toBe("DOWN: Shop API");
    expect(body.blocks).toEqual([
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: [
            "*DOWN: Shop API*",
            "Shop API (http https://shop.example.com/health) is down since 2026-07-01 12:34:56 UTC.",
            "Error: connection refused",
            "Failing nodes: node-fra (connection_refused), node-sin (-)",
            "Dashboard: https://vantage.example.com/monitors/mon_01J0ABC",
          ].join("\n"),
        },
      },
    ]);
  });

  it("escapes &, < and > so a monitor name cannot become a link or a mention", () => {
    const message = sampleMessage("up");
    message.monitor!.name = "<!channel> & <https://evil.example|x>";
    const [req] = slackChannel.build(message, config(), testContext(receiver.base));
    const body = JSON.parse(req?.kind === "http" ? req.body : "{}");
    expect(body.text).toBe("UP: &lt;!channel&gt; &amp; &lt;https://evil.example|x&gt;");
    expect(body.blocks[0].text.text).not.toContain("<");
  });

  it("a 200 with another body fails; 429 and 5xx are retried, other 4xx not", async () => {
    const verdictFor = async (status: number, body: string) => {
      receiver.answer(status, body);
      return (await deliver(slackChannel, sampleMessage("down"), config(), testContext(receiver.base)))
        .verdicts[0];
    };
    expect(await verdictFor(200, "invalid_payload")).toEqual({
      ok: false,
      retry: false,
      reason: "Slack answered invalid_payload",
    });
    expect(await verdictFor(404, "no_service")).toMatchObject({ ok: false, retry: false });
    expect(await verdictFor(400, "invalid_payload")).toMatchObject({ ok: false, retry: false });
    expect(await verdictFor(429, "rate_limited")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(503, "")).toMatchObject({ ok: false, retry: true, reason: "HTTP 503" });
  });

  it("refuses a config that is not one http(s) URL; the URL is the secret", () => {
    const parse = (c: unknown) => slackChannel.configSchema.safeParse(c).success;
    expect(parse({ webhook_url: "https://hooks.slack.com/services/T/B/X" })).toBe(true);
    expect(parse({ webhook_url: "hooks.slack.com/services/T/B/X" })).toBe(false);
    expect(parse({ webhook_url: `https://hooks.slack.com/${"x".repeat(2100)}` })).toBe(false);
    expect(parse({})).toBe(false);
    expect(slackChannel.secretFields).toEqual(["webhook_url"]);
  });
});
