import { createHash, randomInt } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { bearer, issueKey, keyHeaders, newUser, PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import { freshWindow } from "../../testing/fresh-window.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { REGISTER_WINDOW_MS } from "./context.js";

/** Issue #28 items 1 and 2: password reset and change, and the dashboard's rotating refresh cookie. */

const NEW_PASSWORD = "a much better passphrase";

/** The messages queued for `email` (as stored: domain lower-cased), newest last. */
async function queued(t: TestApp, email: string): Promise<{ subject: string; text: string }[]> {
  const rows = await t.db.kysely
    .selectFrom("delivery_outbox")
    .select(["payload", "created_at"])
    .where("channel", "=", "email")
    .where("destination", "=", email.replace(/@.*$/, "@example.com"))
    .orderBy("created_at")
    .execute();
  return rows.map((r) => (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload));
}

async function resetToken(t: TestApp, email: string): Promise<string> {
  const mail = (await queued(t, email)).filter((m) => m.subject === "Reset your Vantage password").at(-1);
  const m = /#\/reset-password\?token=([0-9A-Za-z]+)/.exec(mail?.text ?? "");
  if (!m) throw new Error(`no reset link for ${email}`);
  return m[1]!;
}

/** The refresh cookie's value in a `Set-Cookie` answer, and the header itself. */
function cookieOf(res: { headers: Headers }): { value: string; header: string } {
  const header = res.headers.get("set-cookie") ?? "";
  const m = /^vantage_refresh=([^;]*)/.exec(header);
  if (!m) throw new Error(`no refresh cookie in "${header}"`);
  return { value: m[1]!, header };
}

/** A client address of its own per test (TEST-NET-2), so the per-IP limit counts that test's requests alone. */
const freshIp = () => `198.51.100.${randomInt(1, 255)}`;

const withCookie = (value: string) => ({ cookie: `vantage_refresh=${value}` });

async function loginWithCookie(t: TestApp, email: string, password = PASSWORD) {
  const res = await t.call("POST", "/v1/auth/login", { body: { email, password, refresh_cookie: true } });
  expect(res.status).toBe(200);
  return { token: res.body.data.access_token as string, cookie: cookieOf(res).value };
}

describe.each(dbKinds)("account recovery on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form, {
        VANTAGE_PUBLIC_URL: "https://vantage.example/",
        VANTAGE_TRUSTED_PROXIES: "127.0.0.1",
      });
    });

    it("the verification message links to the dashboard's verify page, token in the fragment", async () => {
      const user = await newUser(t, "link");
      const text = (await queued(t, user.email))[0]!.text;
      const m = /https:\/\/vantage\.example\/#\/verify-email\?token=([A-Za-z0-9_.-]+)/.exec(text);
      expect(m, text).not.toBeNull();
      const res = await t.call("POST", "/v1/auth/verify-email", { body: { token: m![1]! } });
      expect(res.status).toBe(200);
    });

    it("a reset answers alike for any address; the mailed token works once and signs out everything", async () => {
      const user = await newUser(t, "reset");
      const other = await loginWithCookie(t, user.email);
      const from = { "x-forwarded-for": freshIp() };
      const known = await t.call("POST", "/v1/auth/password-reset", {
        headers: from,
        body: { email: user.email },
      });
      const unknown = await t.call("POST", "/v1/auth/password-reset", {
        headers: from,
        body: { email: uniqueEmail("nobody") },
      });
      expect(known.status).toBe(202);
      expect(unknown.status).toBe(202);
      expect(known.body.data).toEqual(unknown.body.data);
      expect(known.headers.get("set-cookie")).toBeNull();

      const token = await resetToken(t, user.email);
      const stored = await t.db.kysely.selectFrom("password_resets").select("token_hash").execute();
      const hash = createHash("sha256").update(token).digest("hex");
      expect(stored.map((r) => r.token_hash)).toContain(hash);
      expect(stored.map((r) => r.token_hash)).not.toContain(token);

      const short = await t.call("POST", "/v1/auth/password-reset/confirm", {
        body: { token, password: "short" },
      });
      expect(short.status).toBe(400);
      expect(short.body.error.details[0].path).toBe("body.password");
      const reset = await t.call("POST", "/v1/auth/password-reset/confirm", {
        body: { token, password: NEW_PASSWORD },
      });
      expect(reset.status).toBe(200);
      const again = await t.call("POST", "/v1/auth/password-reset/confirm", {
        body: { token, password: NEW_PASSWORD },
      });
      expect(again.status).toBe(400);
      expect(again.body.error.details[0].path).toBe("body.token");

      // Every session and refresh credential from before is gone; the old password too.
      expect((await t.call("GET", "/v1/account/profile", { headers: user.headers })).status).toBe(401);
      expect((await t.call("GET", "/v1/account/profile", { headers: bearer(other.token) })).status).toBe(401);
      expect((await t.call("POST", "/v1/auth/refresh", { headers: withCookie(other.cookie) })).status).toBe(
        401,
      );
      const oldLogin = await t.call("POST", "/v1/auth/login", {
        body: { email: user.email, password: PASSWORD },
      });
      expect(oldLogin.status).toBe(401);
      const fresh = await loginWithCookie(t, user.email, NEW_PASSWORD);
      const profile = await t.call("GET", "/v1/account/profile", { headers: bearer(fresh.token) });
      expect(profile.body.data.email_verified).toBe(true);
    });

    it("a reset token expires after 30 minutes, and requests per address are limited for any address", async () => {
      await freshWindow(REGISTER_WINDOW_MS, 30_000);
      const user = await newUser(t, "expire");
      const ask = (email: string, ip: string) =>
        t.call("POST", "/v1/auth/password-reset", { headers: { "x-forwarded-for": ip }, body: { email } });
      expect((await ask(user.email, freshIp())).status).toBe(202);
      const token = await resetToken(t, user.email);
      await t.db.kysely
        .updateTable("password_resets")
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where("user_id", "=", user.userId)
        .execute();
      const late = await t.call("POST", "/v1/auth/password-reset/confirm", {
        body: { token, password: NEW_PASSWORD },
      });
      expect(late.status).toBe(400);
      expect(late.body.error.details[0].path).toBe("body.token");

      // Three per address and hour, from any client, whether or not an account uses the address.
      const ghost = uniqueEmail("ghost");
      const statuses = async (email: string, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await ask(email, freshIp())).status);
        return out;
      };
      expect(await statuses(user.email, 3)).toEqual([202, 202, 429]);
      const refused = await statuses(ghost, 4);
      expect(refused).toEqual([202, 202, 202, 429]);
      const bad = await t.call("POST", "/v1/auth/password-reset", { body: { email: user.email, x: 1 } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("unknown_field");
    });

    it("a password change needs the current password and a login session, and signs out the others", async () => {
      const user = await newUser(t, "change");
      const mine = await loginWithCookie(t, user.email);
      const theirs = await loginWithCookie(t, user.email);
      const key = await issueKey(t, user.userId);
      const body = { current_password: PASSWORD, new_password: NEW_PASSWORD };

      const byKey = await t.call("POST", "/v1/account/password", {
        headers: keyHeaders(form, key.secret),
        body,
      });
      expect(byKey.status).toBe(403);
      const wrong = await t.call("POST", "/v1/account/password", {
        headers: bearer(mine.token),
        body: { ...body, current_password: "not the password" },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.details[0].path).toBe("body.current_password");

      const changed = await t.call("POST", "/v1/account/password", {
        headers: { ...bearer(mine.token), ...withCookie(mine.cookie) },
        body,
      });
      expect(changed.status).toBe(200);
      expect((await t.call("GET", "/v1/account/profile", { headers: bearer(mine.token) })).status).toBe(200);
      expect((await t.call("GET", "/v1/account/profile", { headers: bearer(theirs.token) })).status).toBe(
        401,
      );
      expect((await t.call("GET", "/v1/account/profile", { headers: user.headers })).status).toBe(401);
      expect((await t.call("POST", "/v1/auth/refresh", { headers: withCookie(theirs.cookie) })).status).toBe(
        401,
      );
      expect((await t.call("POST", "/v1/auth/refresh", { headers: withCookie(mine.cookie) })).status).toBe(
        200,
      );
      await loginWithCookie(t, user.email, NEW_PASSWORD);
    });

    it("the refresh cookie is HttpOnly and Strict, rotates on use, and sign-out revokes it", async () => {
      const user = await newUser(t, "refresh");
      const plain = await t.call("POST", "/v1/auth/login", {
        body: { email: user.email, password: PASSWORD },
      });
      expect(plain.headers.get("set-cookie")).toBeNull();

      const login = await t.call("POST", "/v1/auth/login", {
        body: { email: user.email, password: PASSWORD, refresh_cookie: true },
      });
      const first = cookieOf(login);
      expect(first.header).toMatch(/; HttpOnly/);
      expect(first.header).toMatch(/; SameSite=Strict/);
      expect(first.header).toMatch(/; Path=\/v1/);
      expect(first.header).not.toMatch(/Secure/);
      expect(login.body.data.expires_in).toBe(900);
      const overTls = await t.call("POST", "/v1/auth/login", {
        headers: { "x-forwarded-proto": "https" },
        body: { email: user.email, password: PASSWORD, refresh_cookie: true },
      });
      expect(cookieOf(overTls).header).toMatch(/; Secure/);

      expect((await t.call("POST", "/v1/auth/refresh")).status).toBe(401);
      const renewed = await t.call("POST", "/v1/auth/refresh", { headers: withCookie(first.value) });
      expect(renewed.status).toBe(200);
      expect(renewed.body.data.expires_in).toBe(900);
      const second = cookieOf(renewed).value;
      expect(second).not.toBe(first.value);
      const token = renewed.body.data.access_token as string;
      expect((await t.call("GET", "/v1/account/profile", { headers: bearer(token) })).status).toBe(200);

      // The used one again, at once (two tabs racing): refused, the newer one still works.
      const raced = await t.call("POST", "/v1/auth/refresh", { headers: withCookie(first.value) });
      expect(raced.status).toBe(401);
      expect(cookieOf(raced).header).toMatch(/Max-Age=0/);
      const third = await t.call("POST", "/v1/auth/refresh", { headers: withCookie(second) });
      expect(third.status).toBe(200);
      // Used again long after (a copied cookie): the whole sign-in is revoked.
      await t.db.kysely
        .updateTable("refresh_tokens")
        .set({ rotated_at: new Date(Date.now() - 3600_000) })
        .where("user_id", "=", user.userId)
        .where("rotated_at", "is not", null)
        .execute();
      expect((await t.call("POST", "/v1/auth/refresh", { headers: withCookie(first.value) })).status).toBe(
        401,
      );
      expect(
        (await t.call("POST", "/v1/auth/refresh", { headers: withCookie(cookieOf(third).value) })).status,
      ).toBe(401);

      // Sign-out with the cookie revokes it and removes it.
      const next = await loginWithCookie(t, user.email);
      const out = await t.call("POST", "/v1/auth/logout", {
        headers: { ...bearer(next.token), ...withCookie(next.cookie) },
      });
      expect(out.status).toBe(200);
      expect(cookieOf(out).header).toMatch(/Max-Age=0/);
      expect((await t.call("POST", "/v1/auth/refresh", { headers: withCookie(next.cookie) })).status).toBe(
        401,
      );
      expect((await t.call("GET", "/v1/account/profile", { headers: bearer(next.token) })).status).toBe(401);
    });
  });
});
