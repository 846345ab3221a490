import { describe, expect, it } from "vitest";
import { sampleMessage, testContext } from "../testing/channels.js";
import { alertChannels, buildAlert, channelTypes } from "./registry.js";

describe("alert channel registry", () => {
  it("lists the eight types, each under its own name", () => {
    expect(channelTypes).toEqual([
      "email",
      "webhook",
      "slack",
      "dingtalk",
      "feishu",
      "wecom",
      "pagerduty",
      "sms",
    ]);
    for (const type of channelTypes) expect(alertChannels[type].type).toBe(type);
  });

  it("buildAlert parses a stored config before building, and refuses one that does not fit", () => {
    const ctx = testContext("http://127.0.0.1:9");
    const [req] = buildAlert(
      "wecom",
      { webhook_url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k" },
      sampleMessage("up"),
      ctx,
    );
    expect(req).toMatchObject({
      kind: "http",
      url: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k",
    });
    expect(() =>
      buildAlert("wecom", { webhook_url: "https://example.com/" }, sampleMessage("up"), ctx),
    ).toThrow();
  });
});
