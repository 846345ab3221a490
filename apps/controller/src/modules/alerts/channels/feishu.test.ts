import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deliver, sampleMessage, testContext, useReceiver } from "../testing/channels.js";
import { feishuChannel } from "./feishu.js";

const receiver = useReceiver();
const secret = "qJ7bX2kLmN9pR4sT6vW8yZ";
const config = (withSecret = true) => ({
  webhook_url: `${receiver.base}/open-apis/bot/v2/hook/abc-123`,
  ...(withSecret ? { secret } : {}),
});
const ok = JSON.stringify({ code: 0, msg: "success", data: {} });

describe("feishu channel (custom bot)", () => {
  it("signs in the body (seconds, key = timestamp\\nsecret, empty message), recomputed here", async () => {
    receiver.answer(200, ok);
    const now = 1_782_000_000_999;
    const { verdicts } = await deliver(
      feishuChannel,
      sampleMessage("down", "tw"),
      config(),
      testContext(receiver.base, now),
    );
    expect(verdicts).toEqual([{ ok: true }]);
    const req = receiver.received[0]!;
    expect(req.url).toBe("/open-apis/bot/v2/hook/abc-123");
    const body = JSON.parse(req.body);
    expect(body.timestamp).toBe("1782000000");
    const expected = createHmac("sha256", `1782000000\n${secret}`).update("").digest("base64");
    expect(body.sign).toBe(expected);
    expect(body.msg_type).toBe("interactive");
    expect(body.card.header).toEqual({
      title: { tag: "plain_text", content: "故障：Shop API" },
      template: "red",
    });
    expect(body.card.elements[0].text.tag).toBe("lark_md");
    expect(body.card.elements[0].text.content).toContain("自 2026-07-01 12:34:56 UTC 起無法使用。");
    expect(body.card.elements[0].text.content).toContain(
      "失敗節點：node-fra (connection_refused)、node-sin (-)",
    );
  });

  it("without a secret the body carries no timestamp or sign; up is a green card", async () => {
    receiver.answer(200, ok);
    await deliver(feishuChannel, sampleMessage("up"), config(false), testContext(receiver.base));
    const body = JSON.parse(receiver.received[0]!.body);
    expect(body.timestamp).toBeUndefined();
    expect(body.sign).toBeUndefined();
    expect(body.card.header.template).toBe("green");
  });

  it("HTTP 200 with code ≠ 0 fails; legacy StatusCode 0 is delivered; rate limits and 429/503 retry", async () => {
    const verdictFor = async (status: number, body: string) => {
      receiver.answer(status, body);
      return (await deliver(feishuChannel, sampleMessage("down"), config(), testContext(receiver.base)))
        .verdicts[0];
    };
    expect(
      await verdictFor(200, '{"code":19021,"msg":"sign match fail or timestamp is not within one hour"}'),
    ).toEqual({
      ok: false,
      retry: false,
      reason: "Feishu code 19021: sign match fail or timestamp is not within one hour",
    });
    expect(await verdictFor(200, '{"StatusCode":0,"StatusMessage":"success"}')).toEqual({ ok: true });
    expect(await verdictFor(200, '{"code":9499,"msg":"too many request"}')).toMatchObject({ retry: true });
    expect(await verdictFor(200, "")).toMatchObject({ ok: false, retry: false });
    expect(await verdictFor(429, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(503, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(400, "")).toMatchObject({ ok: false, retry: false });
  });

  it("refuses a URL that is not a bot hook, and an overlong secret", () => {
    const parse = (c: unknown) => feishuChannel.configSchema.safeParse(c).success;
    expect(parse({ webhook_url: "https://open.feishu.cn/open-apis/bot/v2/hook/x1" })).toBe(true);
    expect(parse({ webhook_url: "https://open.larksuite.com/open-apis/bot/v2/hook/x1", secret })).toBe(true);
    expect(parse({ webhook_url: "https://open.feishu.cn/open-apis/bot/v2/hook/" })).toBe(false);
    expect(parse({ webhook_url: "https://open.feishu.cn/elsewhere" })).toBe(false);
    expect(
      parse({ webhook_url: "https://open.feishu.cn/open-apis/bot/v2/hook/x1", secret: "a".repeat(201) }),
    ).toBe(false);
  });
});
