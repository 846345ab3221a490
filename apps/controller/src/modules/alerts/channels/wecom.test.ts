import { describe, expect, it } from "vitest";
import { deliver, sampleMessage, testContext, useReceiver } from "../testing/channels.js";
import { wecomChannel } from "./wecom.js";

const receiver = useReceiver();
const config = () => ({ webhook_url: `${receiver.base}/cgi-bin/webhook/send?key=k-123` });

describe("wecom channel (group robot)", () => {
  it("POSTs one markdown message; errcode 0 is delivered", async () => {
    receiver.answer(200, JSON.stringify({ errcode: 0, errmsg: "ok" }));
    const { verdicts } = await deliver(
      wecomChannel,
      sampleMessage("reminder", "cn"),
      config(),
      testContext(receiver.base),
    );
    expect(verdicts).toEqual([{ ok: true }]);
    const req = receiver.received[0]!;
    expect(req.url).toBe("/cgi-bin/webhook/send?key=k-123");
    expect(JSON.parse(req.body)).toEqual({
      msgtype: "markdown",
      markdown: {
        content: [
          "**仍未恢复：Shop API**",
          "Shop API（http https://shop.example.com/health）截至 2026-07-01 12:34:56 UTC 仍不可用。",
          "错误：connection refused",
          "失败节点：node-fra (connection_refused)、node-sin (-)",
          "控制台：https://vantage.example.com/monitors/mon_01J0ABC",
        ].join("\n"),
      },
    });
  });

  it("keeps the content within 4096 bytes", () => {
    const message = sampleMessage("down", "cn");
    message.error = "错".repeat(3000);
    const [req] = wecomChannel.build(message, config(), testContext(receiver.base));
    const content: string = JSON.parse(req?.kind === "http" ? req.body : "{}").markdown.content;
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(4096);
    expect(content.endsWith("…")).toBe(true);
  });

  it("HTTP 200 with errcode ≠ 0 fails; 45009 (rate) and 429/503 are retried", async () => {
    const verdictFor = async (status: number, body: string) => {
      receiver.answer(status, body);
      return (await deliver(wecomChannel, sampleMessage("down"), config(), testContext(receiver.base)))
        .verdicts[0];
    };
    expect(await verdictFor(200, '{"errcode":93000,"errmsg":"invalid webhook url"}')).toEqual({
      ok: false,
      retry: false,
      reason: "WeCom errcode 93000: invalid webhook url",
    });
    expect(await verdictFor(200, '{"errcode":45009,"errmsg":"api freq out of limit"}')).toMatchObject({
      retry: true,
    });
    expect(await verdictFor(429, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(503, "")).toMatchObject({ ok: false, retry: true });
  });

  it("refuses a URL without the send path or the key", () => {
    const parse = (c: unknown) => wecomChannel.configSchema.safeParse(c).success;
    expect(parse({ webhook_url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=abc" })).toBe(true);
    expect(parse({ webhook_url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send" })).toBe(false);
    expect(parse({ webhook_url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=" })).toBe(false);
    expect(parse({ webhook_url: "https://qyapi.weixin.qq.com/other?key=abc" })).toBe(false);
  });
});
