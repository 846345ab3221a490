import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deliver, sampleMessage, testContext, useReceiver } from "../testing/channels.js";
import { dingtalkChannel } from "./dingtalk.js";

const receiver = useReceiver();
const secret = "SEC0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const config = (withSecret = true) => ({
  webhook_url: `${receiver.base}/robot/send?access_token=tok123`,
  ...(withSecret ? { secret } : {}),
});

describe("dingtalk channel (custom robot)", () => {
  it("signs the URL with timestamp (ms) and sign, recomputed here; errcode 0 is delivered", async () => {
    receiver.answer(200, JSON.stringify({ errcode: 0, errmsg: "ok" }));
    const now = 1_782_000_000_123;
    const { verdicts } = await deliver(
      dingtalkChannel,
      sampleMessage("down", "cn"),
      config(),
      testContext(receiver.base, now),
    );
    expect(verdicts).toEqual([{ ok: true }]);
    const req = receiver.received[0]!;
    const url = new URL(req.url, receiver.base);
    expect(url.pathname).toBe("/robot/send");
    expect(url.searchParams.get("access_token")).toBe("tok123");
    expect(url.searchParams.get("timestamp")).toBe(String(now));
    const expected = createHmac("sha256", secret).update(`${now}\n${secret}`).digest("base64");
    expect(url.searchParams.get("sign")).toBe(expected);
    // The sign is URL-encoded in the query: base64's + / = never arrive raw.
    expect(req.url).toContain(`sign=${encodeURIComponent(expected)}`);

    const body = JSON.parse(req.body);
    expect(body.msgtype).toBe("markdown");
    expect(body.markdown.title).toBe("故障：Shop API");
    expect(body.markdown.text).toBe(
      [
        "### 故障：Shop API",
        "Shop API（http https://shop.example.com/health）自 2026-07-01 12:34:56 UTC 起不可用。",
        "错误：connection refused",
        "失败节点：node-fra (connection_refused)、node-sin (-)",
        "控制台：https://vantage.example.com/monitors/mon_01J0ABC",
      ].join("\n\n"),
    );
  });

  it("without a secret the URL is left as configured", async () => {
    receiver.answer(200, JSON.stringify({ errcode: 0, errmsg: "ok" }));
    await deliver(dingtalkChannel, sampleMessage("up"), config(false), testContext(receiver.base));
    expect(receiver.received[0]?.url).toBe("/robot/send?access_token=tok123");
  });

  it("HTTP 200 with errcode ≠ 0 fails; 130101 (too fast) and 429/503 are retried", async () => {
    const verdictFor = async (status: number, body: string) => {
      receiver.answer(status, body);
      return (await deliver(dingtalkChannel, sampleMessage("down"), config(), testContext(receiver.base)))
        .verdicts[0];
    };
    expect(await verdictFor(200, '{"errcode":310000,"errmsg":"sign not match"}')).toEqual({
      ok: false,
      retry: false,
      reason: "DingTalk errcode 310000: sign not match",
    });
    expect(await verdictFor(200, '{"errcode":130101,"errmsg":"send too fast"}')).toMatchObject({
      ok: false,
      retry: true,
    });
    expect(await verdictFor(200, "<html>")).toMatchObject({ ok: false, retry: false });
    expect(await verdictFor(429, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(503, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(404, "")).toMatchObject({ ok: false, retry: false });
  });

  it("refuses a URL that is not a robot URL with a token, and a secret not SEC…", () => {
    const parse = (c: unknown) => dingtalkChannel.configSchema.safeParse(c).success;
    const url = "https://oapi.dingtalk.com/robot/send?access_token=abc";
    expect(parse({ webhook_url: url })).toBe(true);
    expect(parse({ webhook_url: url, secret })).toBe(true);
    expect(parse({ webhook_url: "https://oapi.dingtalk.com/robot/send" })).toBe(false);
    expect(parse({ webhook_url: "https://oapi.dingtalk.com/other?access_token=abc" })).toBe(false);
    expect(parse({ webhook_url: url, secret: "abc" })).toBe(false);
    expect(parse({ webhook_url: url, secret: `SEC${"a".repeat(300)}` })).toBe(false);
  });
});
