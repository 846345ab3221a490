import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markVerified, newUser, type TestUser } from "../../testing/accounts.js";
import { freshWindow } from "../../testing/fresh-window.js";
import { forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { TEST_SEND_WINDOW_MS } from "./test-sends.js";
import { whsec } from "./testing/alerts-api.js";

/**
 * Test sends are no flood source: a verified account only, so many per channel and per account an hour,
 * each one metered. A loopback webhook receiver counts what actually arrived.
 */
describe.each(forms)("alert channel test sends, Form %s", (form) => {
  const db = useTestDb("pglite");
  let receiver: Server;
  let received = 0;
  let url = "";

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received++;
        res.end("ok");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

  const app = () =>
    db.app(form, {
      VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      VANTAGE_ALERT_TEST_LIMIT_CHANNEL: "3",
      VANTAGE_ALERT_TEST_LIMIT_ACCOUNT: "5",
    });
  const hook = async (t: TestApp, u: TestUser, name: string) => {
    const res = await t.call("POST", "/v1/alert-channels", {
      headers: u.headers,
      body: { name, type: "webhook", config: { url, secret: whsec } },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as string;
  };
  const test = (t: TestApp, u: TestUser, id: string) =>
    t.call("POST", `/v1/alert-channels/${id}/test`, { headers: u.headers });

  it("an unverified account is refused with 403 email_not_verified and nothing is sent", async () => {
    const t = app();
    const u = await newUser(t, "unverified");
    const id = await hook(t, u, "mine");
    const before = received;
    const res = await test(t, u, id);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("email_not_verified");
    expect(res.body.error.message).toMatch(/verif/);
    expect(received).toBe(before);
    await markVerified(t, u.userId);
    const sent = await test(t, u, id);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data.ok).toBe(true);
    expect(received).toBe(before + 1);
  });

  it("limited per channel and per account: 429 with Retry-After, nothing sent beyond; each send metered", async () => {
    // The limits count per clock hour: not across an hour's turn.
    await freshWindow(TEST_SEND_WINDOW_MS, 60_000);
    const t = app();
    const u = await newUser(t, "sender");
    await markVerified(t, u.userId);
    const first = await hook(t, u, "first");
    const second = await hook(t, u, "second");
    const before = received;
    const ok = await test(t, u, first);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-limit")).toBe("3");
    expect(ok.headers.get("ratelimit-remaining")).toBe("2");
    for (let i = 0; i < 2; i++) expect((await test(t, u, first)).status).toBe(200);
    const perChannel = await test(t, u, first);
    expect(perChannel.status).toBe(429);
    expect(perChannel.body.error.code).toBe("rate_limited");
    expect(perChannel.body.error.message).toContain("per channel");
    expect(Number(perChannel.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(perChannel.headers.get("ratelimit-limit")).toBe("3");
    expect(perChannel.headers.get("ratelimit-remaining")).toBe("0");
    expect(received).toBe(before + 3);
    // The other channel has its own 3, but the account only 2 more of its 5.
    for (let i = 0; i < 2; i++) expect((await test(t, u, second)).status).toBe(200);
    const perAccount = await test(t, u, second);
    expect(perAccount.status).toBe(429);
    expect(perAccount.body.error.message).toContain("per account");
    expect(perAccount.headers.get("ratelimit-limit")).toBe("5");
    expect(received).toBe(before + 5);
    // Another account is not held by this one's sends.
    const other = await newUser(t, "other");
    await markVerified(t, other.userId);
    expect((await test(t, other, await hook(t, other, "theirs"))).status).toBe(200);
    // Metered: the account's usage shows its 5 test sends, the refused ones not.
    const usage = await t.call("GET", "/v1/account/usage", { headers: u.headers });
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body.data.usage).toContainEqual(
      expect.objectContaining({ family: "alert_tests", unit: "test sends", units: 5, calls: 5 }),
    );
  });

  it("a refused id costs nothing: another account's channel is 404 and spends none of the limits", async () => {
    const t = app();
    const owner = await newUser(t, "owner");
    const stranger = await newUser(t, "stranger");
    await Promise.all([markVerified(t, owner.userId), markVerified(t, stranger.userId)]);
    const id = await hook(t, owner, "owned");
    for (let i = 0; i < 6; i++) expect((await test(t, stranger, id)).status).toBe(404);
    expect((await test(t, owner, id)).headers.get("ratelimit-remaining")).toBe("2");
  });
});
