import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import { startSmtp } from "../../testing/smtp-server.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createSenders, startDeliveryWorker } from "../delivery/index.js";

/** The token as written in the message body (quoted-printable soft breaks undone). */
function tokenIn(raw: string): string {
  const body = raw.replace(/=\r?\n/g, "");
  const m = /verification token: ([A-Za-z0-9_.-]+)/.exec(body);
  if (!m) throw new Error(`no token in message:\n${raw}`);
  return m[1]!;
}

/** The text of the verification message queued for `email` (read from the outbox, not sent). */
async function queuedText(t: TestApp, email: string): Promise<string> {
  const row = await t.db.kysely
    .selectFrom("delivery_outbox")
    .select("payload")
    .where("channel", "=", "email")
    .where("destination", "=", email.replace(/@.*$/, "@example.com"))
    .executeTakeFirstOrThrow();
  const payload = (typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload) as {
    text: string;
  };
  return payload.text;
}

async function queuedToken(t: TestApp, email: string): Promise<string> {
  return tokenIn(await queuedText(t, email));
}

describe.each(dbKinds)("email verification on %s", (kind) => {
  const db = useTestDb(kind);
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.stop();
  });

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form, { SMTP_URL: smtp.url });
    });

    it("queues a message on registration, sends it over SMTP, and its token verifies the email", async () => {
      const email = uniqueEmail("verify");
      const reg = await t.call("POST", "/v1/auth/register", { body: { email, password: PASSWORD } });
      expect(reg.status).toBe(201);
      const stored = email.replace(/@.*$/, "@example.com");
      const queued = await t.db.kysely
        .selectFrom("delivery_outbox")
        .selectAll()
        .where("channel", "=", "email")
        .where("destination", "=", stored)
        .executeTakeFirstOrThrow();
      expect(queued.sent_at).toBeNull();

      const log = pino({ level: "silent" });
      const worker = startDeliveryWorker({
        db: t.db.kysely,
        senders: createSenders({ smtpUrl: t.config.SMTP_URL, smtpFrom: t.config.SMTP_FROM, log }),
        log,
        poll: false,
      });
      await worker.runOnce();
      await worker.stop();

      const message = smtp.inbox.find((m) => m.to.includes(stored));
      expect(message, "message delivered to the SMTP server").toBeDefined();
      expect(message!.raw).toMatch(/Subject: Verify your Vantage email address/);
      const sent = await t.db.kysely
        .selectFrom("delivery_outbox")
        .select("sent_at")
        .where("id", "=", queued.id)
        .executeTakeFirstOrThrow();
      expect(sent.sent_at).not.toBeNull();

      const auth = { authorization: `Bearer ${reg.body.data.access_token}` };
      const before = await t.call("GET", "/v1/account/profile", { headers: auth });
      expect(before.body.data.email_verified).toBe(false);
      const verified = await t.call("POST", "/v1/auth/verify-email", {
        body: { token: tokenIn(message!.raw) },
      });
      expect(verified.status).toBe(200);
      expect(verified.body.data).toMatchObject({ email: stored, email_verified: true });
      const after = await t.call("GET", "/v1/account/profile", { headers: auth });
      expect(after.body.data.email_verified).toBe(true);
    });

    it("a token verifies once: used again it is refused with 400 like a bad one", async () => {
      const email = uniqueEmail("once");
      const reg = await t.call("POST", "/v1/auth/register", { body: { email, password: PASSWORD } });
      expect(reg.status).toBe(201);
      const token = await queuedToken(t, email);
      const first = await t.call("POST", "/v1/auth/verify-email", { body: { token } });
      expect(first.status).toBe(200);
      const again = await t.call("POST", "/v1/auth/verify-email", { body: { token } });
      expect(again.status).toBe(400);
      expect(again.body.error.code).toBe("validation_error");
      expect(again.body.error.details[0].path).toBe("body.token");
      expect(again.body.error.message).toMatch(/used/);
    });

    it("the message's link carries the token in the fragment: opening it (as mail scanners do) cannot use it up", async () => {
      const withUrl = db.app(form, { VANTAGE_PUBLIC_URL: "https://vantage.example" });
      const email = uniqueEmail("link");
      await withUrl.call("POST", "/v1/auth/register", { body: { email, password: PASSWORD } });
      const text = await queuedText(withUrl, email);
      expect(text).toMatch(/https:\/\/vantage\.example\/#\/verify-email\?token=/);
      expect(text).not.toMatch(/\/v1\/auth\/verify-email\?token=/);
      const token = tokenIn(text);
      const opened = await withUrl.call("GET", `/v1/auth/verify-email?token=${token}`);
      expect(opened.status).toBe(405);
      expect((await withUrl.call("POST", "/v1/auth/verify-email", { body: { token } })).status).toBe(200);
    });

    it("of concurrent uses of one token exactly one succeeds", async () => {
      const email = uniqueEmail("race");
      await t.call("POST", "/v1/auth/register", { body: { email, password: PASSWORD } });
      const token = await queuedToken(t, email);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => t.call("POST", "/v1/auth/verify-email", { body: { token } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    });

    it("refuses a bad verification token with 400, and an access token is not one", async () => {
      const reg = await t.call("POST", "/v1/auth/register", {
        body: { email: uniqueEmail(), password: PASSWORD },
      });
      for (const token of ["nonsense", reg.body.data.access_token]) {
        const res = await t.call("POST", "/v1/auth/verify-email", { body: { token } });
        expect(res.status).toBe(400);
        expect(res.body.error.details[0].path).toBe("body.token");
      }
    });
  });

  it("without SMTP_URL the message is written to the log (embedded mode)", async () => {
    const t = db.app("b");
    const email = uniqueEmail("logged");
    await t.call("POST", "/v1/auth/register", { body: { email, password: PASSWORD } });
    const lines: string[] = [];
    const log = pino(
      { level: "info" },
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    const worker = startDeliveryWorker({
      db: t.db.kysely,
      senders: createSenders({ smtpUrl: undefined, smtpFrom: t.config.SMTP_FROM, log }),
      log,
      poll: false,
    });
    await worker.runOnce();
    await worker.stop();
    const entry = lines
      .map((l) => JSON.parse(l))
      .find((l) => l.mail?.to === email.replace(/@.*$/, "@example.com"));
    expect(entry?.mail.subject).toBe("Verify your Vantage email address");
    const token = tokenIn(entry.mail.text);
    expect((await t.call("POST", "/v1/auth/verify-email", { body: { token } })).status).toBe(200);
  });
});
