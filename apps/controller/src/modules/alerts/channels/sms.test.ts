import { describe, expect, it } from "vitest";
import { deliver, sampleMessage, testContext, useReceiver } from "../testing/channels.js";
import { smsChannel } from "./sms.js";

const receiver = useReceiver();
const config = {
  account_sid: "AC0123456789abcdef0123456789abcdef",
  auth_token: "token-secret",
  from: "+14155550100",
  to: ["+8613800138000", "+442071838750"],
};
const created = JSON.stringify({ sid: "SM0123", status: "queued" });

describe("sms channel (Twilio-compatible Messages API)", () => {
  it("sends one form-encoded request per recipient with Basic auth; 201 with a sid is delivered", async () => {
    receiver.answer(201, created);
    const { verdicts } = await deliver(
      smsChannel,
      sampleMessage("down", "tw"),
      config,
      testContext(receiver.base),
    );
    expect(verdicts).toEqual([{ ok: true }, { ok: true }]);
    expect(receiver.received).toHaveLength(2);
    for (const [i, req] of receiver.received.entries()) {
      expect(req.method).toBe("POST");
      expect(req.url).toBe(`/2010-04-01/Accounts/${config.account_sid}/Messages.json`);
      expect(req.headers["content-type"]).toBe("application/x-www-form-urlencoded");
      const [scheme, credentials] = (req.headers.authorization ?? "").split(" ");
      expect(scheme).toBe("Basic");
      expect(Buffer.from(credentials ?? "", "base64").toString()).toBe(`${config.account_sid}:token-secret`);
      const form = new URLSearchParams(req.body);
      expect(form.get("To")).toBe(config.to[i]);
      expect(form.get("From")).toBe("+14155550100");
      expect(form.get("Body")).toBe(
        [
          "故障：Shop API",
          "Shop API（http https://shop.example.com/health）自 2026-07-01 12:34:56 UTC 起無法使用。",
          "錯誤：connection refused",
          "失敗節點：node-fra (connection_refused)、node-sin (-)",
          "控制台：https://vantage.example.com/monitors/mon_01J0ABC",
        ].join("\n"),
      );
    }
  });

  it("keeps the body within 1600 characters", () => {
    const message = sampleMessage("down");
    message.error = "e".repeat(5000);
    const [req] = smsChannel.build(message, config, testContext("https://api.twilio.com/"));
    expect(req?.kind === "http" && req.url).toBe(
      `https://api.twilio.com/2010-04-01/Accounts/${config.account_sid}/Messages.json`,
    );
    const body = new URLSearchParams(req?.kind === "http" ? req.body : "").get("Body") ?? "";
    expect(Array.from(body)).toHaveLength(1600);
  });

  it("429 and 5xx are retried, other 4xx fail, a 201 without a sid fails", async () => {
    const verdictFor = async (status: number, body: string) => {
      receiver.answer(status, body);
      const one = { ...config, to: ["+14155550101"] };
      return (await deliver(smsChannel, sampleMessage("down"), one, testContext(receiver.base))).verdicts[0];
    };
    expect(await verdictFor(400, '{"code":21211,"message":"invalid To"}')).toMatchObject({
      ok: false,
      retry: false,
    });
    expect(await verdictFor(401, '{"code":20003}')).toMatchObject({ ok: false, retry: false });
    expect(await verdictFor(429, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(503, "")).toMatchObject({ ok: false, retry: true });
    expect(await verdictFor(201, "{}")).toMatchObject({ ok: false, retry: false });
  });

  it("refuses numbers that are not E.164, more than 5 recipients, duplicates and a SID unfit for a path", () => {
    const parse = (c: unknown) => smsChannel.configSchema.safeParse(c).success;
    expect(parse(config)).toBe(true);
    expect(parse({ ...config, to: ["13800138000"] })).toBe(false);
    expect(parse({ ...config, to: ["+0123"] })).toBe(false);
    expect(parse({ ...config, from: "+1 415 555 0100" })).toBe(false);
    expect(parse({ ...config, to: [] })).toBe(false);
    expect(parse({ ...config, to: ["+11", "+12", "+13", "+14", "+15", "+16"] })).toBe(false);
    expect(parse({ ...config, to: ["+8613800138000", "+8613800138000"] })).toBe(false);
    expect(parse({ ...config, account_sid: "AC../../x" })).toBe(false);
    expect(parse({ ...config, auth_token: "" })).toBe(false);
    expect(smsChannel.secretFields).toEqual(["auth_token"]);
  });
});
