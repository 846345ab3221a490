import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { bearer, newUser, PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

describe.each(dbKinds)("accounts: register, login, logout on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form);
    });

    const secret = () => new TextEncoder().encode(t.config.VANTAGE_JWT_SECRET);
    const claimsFor = (userId: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("vantage")
        .setAudience("vantage-api")
        .setSubject(userId)
        .setJti("ses_forged");

    it("registers with a normalised email and answers a 15-minute bearer JWT", async () => {
      const local = `Mixed.Case-${Date.now()}`;
      const res = await t.call("POST", "/v1/auth/register", {
        body: { email: `  ${local}@EXAMPLE.Org `, password: PASSWORD },
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ token_type: "Bearer", expires_in: 900 });
      const [, payload] = (res.body.data.access_token as string).split(".");
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
      expect(claims.exp - claims.iat).toBe(900);
      expect(claims.jti).toMatch(/^ses_/);
      expect(claims.sub).toMatch(/^usr_/);
      const profile = await t.call("GET", "/v1/account/profile", {
        headers: bearer(res.body.data.access_token),
      });
      expect(profile.status).toBe(200);
      expect(profile.body.data.email).toBe(`${local}@example.org`);
      expect(profile.body.data.email_verified).toBe(false);
    });

    it("refuses a duplicate email (also in another letter case) with 409", async () => {
      const email = uniqueEmail("dup");
      expect(
        (await t.call("POST", "/v1/auth/register", { body: { email, password: PASSWORD } })).status,
      ).toBe(201);
      const again = await t.call("POST", "/v1/auth/register", {
        body: { email: email.toUpperCase(), password: PASSWORD },
      });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("conflict");
    });

    it.each([
      ["an invalid email", { email: "not-an-email", password: PASSWORD }, "body.email"],
      ["a 7-character password", { email: uniqueEmail(), password: "1234567" }, "body.password"],
      ["a 73-byte password", { email: uniqueEmail(), password: "a".repeat(73) }, "body.password"],
      [
        "a 25-character, 75-byte password",
        { email: uniqueEmail(), password: "密".repeat(25) },
        "body.password",
      ],
      ["a missing password", { email: uniqueEmail() }, "body.password"],
    ])("answers 400 for %s, naming the field", async (_, body, path) => {
      const res = await t.call("POST", "/v1/auth/register", { body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    });

    it("accepts an 8-character password of multi-byte characters within 72 bytes", async () => {
      const res = await t.call("POST", "/v1/auth/register", {
        body: { email: uniqueEmail(), password: "密码密码密码密码" },
      });
      expect(res.status).toBe(201);
    });

    it("logs in with any letter case of the domain; wrong password and unknown email give the same 401", async () => {
      const u = await newUser(t, "login");
      const good = await t.call("POST", "/v1/auth/login", {
        body: { email: u.email.toLowerCase(), password: PASSWORD },
      });
      expect(good.status).toBe(200);
      expect(good.body.data.token_type).toBe("Bearer");

      const wrong = await t.call("POST", "/v1/auth/login", {
        body: { email: u.email, password: "wrong password" },
      });
      const unknown = await t.call("POST", "/v1/auth/login", {
        body: { email: uniqueEmail("nobody"), password: "wrong password" },
      });
      for (const r of [wrong, unknown]) {
        expect(r.status).toBe(401);
        expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
      }
      expect(wrong.body.error).toEqual(unknown.body.error);
    });

    it("logout revokes that token only; the revoked token then gets 401", async () => {
      const u = await newUser(t, "logout");
      const other = await t.call("POST", "/v1/auth/login", { body: { email: u.email, password: PASSWORD } });
      const out = await t.call("POST", "/v1/auth/logout", { headers: u.headers });
      expect(out.status).toBe(200);
      expect(out.body).toMatchObject({ data: null });
      const after = await t.call("GET", "/v1/account/profile", { headers: u.headers });
      expect(after.status).toBe(401);
      expect(after.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(after.body.error.code).toBe("unauthorized");
      const still = await t.call("GET", "/v1/account/profile", {
        headers: bearer(other.body.data.access_token),
      });
      expect(still.status).toBe(200);
    });

    it("refuses expired, forged, alg:none, wrong-audience and unknown-session tokens with 401", async () => {
      const u = await newUser(t, "tokens");
      const now = Math.floor(Date.now() / 1000);
      const [, realPayload] = u.token.split(".");
      const realJti = JSON.parse(Buffer.from(realPayload!, "base64url").toString()).jti as string;
      const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
      const tokens = {
        expired: await claimsFor(u.userId)
          .setJti(realJti)
          .setIssuedAt(now - 2000)
          .setExpirationTime(now - 1000)
          .sign(secret()),
        forged: await claimsFor(u.userId)
          .setJti(realJti)
          .setExpirationTime(now + 600)
          .sign(new TextEncoder().encode("another-secret-another-secret-0123456789")),
        algNone: `${b64({ alg: "none", typ: "JWT" })}.${b64({ iss: "vantage", aud: "vantage-api", sub: u.userId, jti: realJti, exp: now + 600 })}.`,
        wrongAudience: await claimsFor(u.userId)
          .setJti(realJti)
          .setAudience("someone-else")
          .setExpirationTime(now + 600)
          .sign(secret()),
        unknownSession: await claimsFor(u.userId)
          .setExpirationTime(now + 600)
          .sign(secret()),
        garbage: "not.a.jwt",
      };
      for (const [name, token] of Object.entries(tokens)) {
        const res = await t.call("GET", "/v1/account/profile", { headers: bearer(token) });
        expect(res.status, name).toBe(401);
        expect(res.headers.get("www-authenticate"), name).toMatch(/^Bearer/);
        expect(res.body.error.code, name).toBe("unauthorized");
      }
      // The genuine token still works: the refusals were about the tokens, not the session.
      expect((await t.call("GET", "/v1/account/profile", { headers: u.headers })).status).toBe(200);
    });

    it("answers 401 with WWW-Authenticate: Bearer and the envelope without credentials", async () => {
      const res = await t.call("GET", "/v1/account/profile");
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(res.body).toMatchObject({ error: { code: "unauthorized" }, request_id: expect.any(String) });
    });
  });
});
