import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planLimitsEnv } from "../../controller/src/testing/plan-limits.js";
import { startSmtp } from "../../controller/src/testing/smtp-server.js";
import { until } from "../../controller/src/testing/until.js";
import { type Dashboard, signIn, startDashboard } from "./harness.js";

/**
 * Every alert channel type is created through the alerts page (issue #28 item 8) and its test message
 * reaches a loopback stand-in of its vendor: one HTTP receiver answering as each vendor does, and an
 * SMTP server for email. PagerDuty's and the SMS provider's endpoints point at the receiver.
 */
/** A vendor stand-in on 127.0.0.1: keeps each request's method and URL, answers what `answer` set. */
function receiver() {
  const state = {
    base: "",
    received: [] as { method: string; url: string }[],
    reply: [200, "ok"] as [number, string],
    answer(status: number, body: string) {
      state.reply = [status, body];
    },
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      state.received.push({ method: req.method ?? "", url: req.url ?? "" });
      res.writeHead(state.reply[0], { "content-type": "application/json" }).end(state.reply[1]);
    });
  });
  return {
    state,
    async start() {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("alert channels from the dashboard, Form A", () => {
  let d: Dashboard;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const vendor = receiver();
  const stand = vendor.state;
  beforeAll(async () => {
    await vendor.start();
    smtp = await startSmtp();
    d = await startDashboard({
      form: "a",
      env: {
        SMTP_URL: smtp.url,
        VANTAGE_PAGERDUTY_URL: `${stand.base}/v2/enqueue`,
        VANTAGE_SMS_API_URL: stand.base,
        VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { alert_channels: 10 } }),
      },
    });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    await smtp?.stop();
    await vendor.stop();
  });

  it("creates each of the eight types with its vendor's hint, and each delivers its test", async () => {
    const email = "channels-a@example.com";
    const page = await d.page();
    await signIn(page, d.url, email);
    await d.runtime.db.kysely
      .updateTable("users")
      .set({ email_verified: true })
      .where("email", "=", email)
      .execute();
    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    await page.getByRole("heading", { name: "Alerts", level: 1 }).waitFor();
    const form = page.getByRole("form", { name: "Add a channel" });
    const b = stand.base;
    const cases: {
      type: string;
      hint: RegExp;
      fill: Record<string, string>;
      /** The receiver's answer, as the vendor's. */
      answer?: [number, string];
      /** Where the test message landed. */
      path?: RegExp;
    }[] = [
      {
        type: "Webhook",
        hint: /Standard Webhooks/,
        fill: { "URL to POST to": `${b}/hook` },
        answer: [204, ""],
        path: /^\/hook$/,
      },
      {
        type: "Email",
        hint: /at most 10 recipients/,
        fill: { "Recipients (one per line or comma-separated)": "ops@example.com" },
      },
      {
        type: "Slack",
        hint: /Incoming Webhooks/,
        fill: { "Slack incoming webhook URL": `${b}/services/T1/B2/x` },
        answer: [200, "ok"],
        path: /^\/services\/T1\/B2\/x$/,
      },
      {
        type: "DingTalk",
        hint: /Additional Signature/,
        fill: {
          "DingTalk robot webhook URL": `${b}/robot/send?access_token=tok1`,
          "Signing secret (optional)": "SECabc123",
        },
        answer: [200, '{"errcode":0,"errmsg":"ok"}'],
        path: /^\/robot\/send\?access_token=tok1&timestamp=\d+&sign=/,
      },
      {
        type: "Feishu / Lark",
        hint: /signature verification/,
        fill: {
          "Feishu / Lark bot webhook URL": `${b}/open-apis/bot/v2/hook/abc`,
          "Signing secret (optional)": "s3cret",
        },
        answer: [200, '{"code":0,"msg":"success"}'],
        path: /^\/open-apis\/bot\/v2\/hook\/abc$/,
      },
      {
        type: "WeCom",
        hint: /Group Robots/,
        fill: { "WeCom group robot webhook URL": `${b}/cgi-bin/webhook/send?key=k1` },
        answer: [200, '{"errcode":0,"errmsg":"ok"}'],
        path: /^\/cgi-bin\/webhook\/send\?key=k1$/,
      },
      {
        type: "PagerDuty",
        hint: /Events API V2/,
        fill: { "Integration key (routing key)": "0123456789abcdef0123456789abcdef" },
        answer: [202, '{"status":"success","message":"Event processed","dedup_key":"x"}'],
        path: /^\/v2\/enqueue$/,
      },
      {
        type: "SMS",
        hint: /Twilio Console/,
        fill: {
          "Account SID": "AC0123456789abcdef0123456789abcdef",
          "Auth token": "tok-secret",
          "Sending number (E.164, such as +14155550100)": "+14155550100",
          "Numbers to text (E.164, one per line or comma-separated, at most 5)": "+14155550101",
        },
        answer: [201, '{"sid":"SM123"}'],
        path: /^\/2010-04-01\/Accounts\/AC0123456789abcdef0123456789abcdef\/Messages\.json$/,
      },
    ];
    for (const c of cases) {
      await form.getByLabel("Type").selectOption({ label: c.type });
      await form.getByRole("region", { name: "Where to find these" }).getByText(c.hint).waitFor();
      const name = `${c.type} alerts`;
      await form.getByLabel("Name").fill(name);
      for (const [label, value] of Object.entries(c.fill))
        await form.getByLabel(label, { exact: true }).fill(value);
      await form.getByRole("button", { name: "Add channel" }).click();
      const row = page.getByRole("row", { name: new RegExp(name.replace(/[/]/g, "\\/")) });
      await row.getByText("Delivering").waitFor();
      stand.received.length = 0;
      if (c.answer) stand.answer(...c.answer);
      await row.getByRole("button", { name: `Send a test to ${name}` }).click();
      await row.getByText(/^Test sent/).waitFor();
      if (c.path) {
        expect(stand.received.map((r) => r.url)).toEqual([expect.stringMatching(c.path)]);
        expect(stand.received[0]!.method).toBe("POST");
      }
    }
    await until("the test mail received", () => smtp.inbox.some((m) => m.to.includes("ops@example.com")));
    const listed = (await d.runtime.db.kysely.selectFrom("alert_channels").select("type").execute()).map(
      (r) => r.type,
    );
    expect(listed.sort()).toEqual([
      "dingtalk",
      "email",
      "feishu",
      "pagerduty",
      "slack",
      "sms",
      "webhook",
      "wecom",
    ]);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  }, 60_000);

  it("dark mode follows the system setting, and text keeps its contrast on every surface", async () => {
    const page = await d.page();
    await signIn(page, d.url, "dark-a@example.com");
    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    await page.getByRole("button", { name: "Add channel" }).waitFor();
    // WCAG contrast of an element's text on its surface (its own background, else the card's or the page's).
    const contrast = `((sel) => {
      const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 4).map(Number);
      const lum = (c) => {
        const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const el = document.querySelector(sel);
      let bg = el;
      while (bg && (rgb(getComputedStyle(bg).backgroundColor)[3] === 0 || getComputedStyle(bg).backgroundColor === "transparent")) bg = bg.parentElement;
      const [a, b] = [lum(getComputedStyle(el).color), lum(getComputedStyle(bg ?? document.body).backgroundColor)];
      return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    })`;
    const measure = async () => ({
      page: Number(await page.evaluate(`${contrast}("body")`)),
      card: Number(await page.evaluate(`${contrast}(".card h2, .card p, .card label")`)),
      muted: Number(await page.evaluate(`${contrast}(".muted")`)),
      button: Number(await page.evaluate(`${contrast}("button[type=submit]")`)),
      background: String(await page.evaluate(`getComputedStyle(document.body).backgroundColor`)),
    });
    await page.emulateMedia({ colorScheme: "light" });
    const light = await measure();
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await measure();
    expect(dark.background).not.toBe(light.background);
    expect(dark.background).toBe("rgb(13, 17, 23)");
    for (const [scheme, m] of [
      ["light", light],
      ["dark", dark],
    ] as const) {
      // 4.5:1 is WCAG AA for body text.
      for (const k of ["page", "card", "muted", "button"] as const)
        expect(m[k], `${scheme} ${k}`).toBeGreaterThanOrEqual(4.5);
    }
    expect(page.errors).toEqual([]);
  });

  it("a policy for all monitors is made from the policies form and listed as such", async () => {
    const email = "policy-all-a@example.com";
    const page = await d.page();
    const token = await signIn(page, d.url, email);
    await page.goto(`${d.url}/#/alerts`);
    await page.reload();
    const policy = page.getByRole("form", { name: "Add a policy" });
    await policy
      .getByText("No monitors yet: create one (a policy for all monitors covers it too).")
      .waitFor();
    await policy.getByLabel("Name").fill("everything");
    await policy.getByLabel("Monitor").selectOption({ label: "All monitors (those added later too)" });
    await policy.getByRole("button", { name: "Add policy" }).click();
    const row = page.getByRole("row", { name: /everything/ });
    await row.getByRole("cell", { name: "All monitors", exact: true }).waitFor();
    const res = await fetch(`${d.url}/v1/alert-policies`, { headers: { authorization: `Bearer ${token}` } });
    const listed = (await res.json()) as { data: { items: Record<string, unknown>[] } };
    expect(listed.data.items).toEqual([
      expect.objectContaining({ name: "everything", scope: "all", monitor_id: null }),
    ]);
    expect(page.outside).toEqual([]);
    expect(page.errors).toEqual([]);
  });
});
