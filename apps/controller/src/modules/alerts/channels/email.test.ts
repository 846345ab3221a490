import { createTransport } from "nodemailer";
import { describe, expect, it } from "vitest";
import { startSmtp } from "../../../testing/smtp-server.js";
import { sampleMessage, testContext } from "../testing/channels.js";
import { emailChannel } from "./email.js";

const ctx = testContext("http://127.0.0.1:9");
const to = ["ops@example.com", "oncall@example.com"];

describe("email channel", () => {
  it("builds one mail to every address with a subject and a plain body", () => {
    expect(emailChannel.build(sampleMessage("down"), { to }, ctx)).toEqual([
      {
        kind: "email",
        to,
        subject: "[Vantage] DOWN: Shop API",
        text: [
          "Shop API (http https://shop.example.com/health) is down since 2026-07-01 12:34:56 UTC.",
          "Error: connection refused",
          "Failing nodes: node-fra (connection_refused), node-sin (-)",
          "Dashboard: https://vantage.example.com/monitors/mon_01J0ABC",
        ].join("\n"),
      },
    ]);
    const [test] = emailChannel.build(sampleMessage("test", "cn"), { to }, ctx);
    expect(test).toMatchObject({ subject: "[Vantage] Vantage 测试告警" });
  });

  it("the built mail goes through a real SMTP server as nodemailer sends it", async () => {
    const smtp = await startSmtp();
    try {
      const [mail] = emailChannel.build(sampleMessage("up"), { to }, ctx);
      if (mail?.kind !== "email") throw new Error("not an email");
      const transport = createTransport(smtp.url);
      await transport.sendMail({
        from: "vantage@example.com",
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
      transport.close();
      expect(smtp.inbox).toHaveLength(1);
      expect(smtp.inbox[0]?.to).toEqual(to);
      const raw = smtp.inbox[0]?.raw ?? "";
      expect(raw).toContain("Subject: [Vantage] UP: Shop API");
      // The body is quoted-printable: `=` at a line's end is a soft break.
      expect(raw.replace(/=\r\n/g, "")).toContain("is up again since 2026-07-01 12:34:56 UTC.");
    } finally {
      await smtp.stop();
    }
  });

  it("reads an SMTP reply code: 2xx delivered, 4xx retried, 5xx not", () => {
    expect(emailChannel.judge(250, "OK")).toEqual({ ok: true });
    expect(emailChannel.judge(451, "try later")).toMatchObject({ ok: false, retry: true });
    expect(emailChannel.judge(550, "no such user")).toMatchObject({ ok: false, retry: false });
  });

  it("refuses no address, more than 10, and a malformed one", () => {
    const parse = (c: unknown) => emailChannel.configSchema.safeParse(c).success;
    expect(parse({ to })).toBe(true);
    expect(parse({ to: [] })).toBe(false);
    expect(parse({ to: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`) })).toBe(false);
    expect(parse({ to: ["not-an-address"] })).toBe(false);
    expect(parse({ to, cc: to })).toBe(false);
  });
});
