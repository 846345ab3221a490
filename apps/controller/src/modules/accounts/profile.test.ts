import { beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

describe.each(dbKinds)("profile on %s", (kind) => {
  const db = useTestDb(kind);

  describe("form a", () => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app("a");
    });
    const patch = (headers: Record<string, string>, body: unknown) =>
      t.call("PATCH", "/v1/account/profile", { headers, body });

    it("reads the full form A profile with its defaults", async () => {
      const u = await newUser(t, "prof");
      const res = await t.call("GET", "/v1/account/profile", { headers: u.headers });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id: u.userId,
        email: u.email.replace(/@.*$/, "@example.com"),
        email_verified: false,
        phone: "",
        phone_verified: false,
        has_password: true,
        display_name: null,
        avatar_url: null,
        bio: null,
        locale: "en",
        timezone: "UTC",
        theme: "system",
        status: "active",
      });
      expect(res.body.data).not.toHaveProperty("plan");
    });

    it("changes given fields, leaves omitted ones, and answers the whole profile", async () => {
      const u = await newUser(t, "patch");
      const first = await patch(u.headers, {
        display_name: "  Ada  ",
        bio: "Counts engines.",
        locale: "tw",
        timezone: "asia/shanghai",
        theme: "dark",
      });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({
        display_name: "Ada",
        bio: "Counts engines.",
        locale: "tw",
        timezone: "Asia/Shanghai",
        theme: "dark",
      });
      const second = await patch(u.headers, { theme: "light" });
      expect(second.body.data).toMatchObject({ display_name: "Ada", bio: "Counts engines.", theme: "light" });
      const empty = await patch(u.headers, {});
      expect(empty.status).toBe(200);
      expect(empty.body.data.theme).toBe("light");
    });

    it("clears display_name and bio with null or a blank string", async () => {
      const u = await newUser(t, "clear");
      await patch(u.headers, { display_name: "Ada", bio: "x" });
      const res = await patch(u.headers, { display_name: null, bio: "   " });
      expect(res.body.data).toMatchObject({ display_name: null, bio: null });
    });

    it("counts lengths in Unicode characters: 64 emoji pass, 65 do not; bio 500/501", async () => {
      const u = await newUser(t, "len");
      const ok = await patch(u.headers, { display_name: "😀".repeat(64), bio: "é".repeat(500) });
      expect(ok.status).toBe(200);
      expect([...ok.body.data.display_name]).toHaveLength(64);
      for (const [field, value] of [
        ["display_name", "😀".repeat(65)],
        ["bio", "b".repeat(501)],
      ] as const) {
        const res = await patch(u.headers, { [field]: value });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe("validation_error");
        expect(res.body.error.details[0].path).toBe(`body.${field}`);
      }
    });

    it.each([
      ["locale", "fr"],
      ["theme", "neon"],
      ["timezone", "Mars/Olympus_Mons"],
      ["timezone", "+01:00"],
    ])("refuses %s=%s with 400 naming the field", async (field, value) => {
      const u = await newUser(t, "enum");
      const res = await patch(u.headers, { [field]: value });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toBe(`body.${field}`);
    });

    it("answers an unknown field with 400 unknown_field naming it, and changes nothing", async () => {
      const u = await newUser(t, "unknown");
      const res = await patch(u.headers, { display_name: "Ada", plan: "business" });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("unknown_field");
      expect(res.body.error.details).toEqual([{ path: "body.plan", message: "unknown field" }]);
      const after = await t.call("GET", "/v1/account/profile", { headers: u.headers });
      expect(after.body.data.display_name).toBeNull();
    });
  });

  describe("form b", () => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app("b");
    });

    it("reads id, email, display_name, plan (free) and email_verified", async () => {
      const u = await newUser(t, "profb");
      const res = await t.call("GET", "/v1/account/profile", { headers: u.headers });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id: u.userId,
        email: u.email.replace(/@.*$/, "@example.com"),
        display_name: null,
        plan: "free",
        email_verified: false,
      });
    });

    it("PATCH sets and clears display_name and answers {id, display_name}", async () => {
      const u = await newUser(t, "patchb");
      const res = await t.call("PATCH", "/v1/account/profile", {
        headers: u.headers,
        body: { display_name: " Bob " },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: u.userId, display_name: "Bob" });
      const cleared = await t.call("PATCH", "/v1/account/profile", {
        headers: u.headers,
        body: { display_name: "" },
      });
      expect(cleared.body.data).toEqual({ id: u.userId, display_name: null });
      const tooLong = await t.call("PATCH", "/v1/account/profile", {
        headers: u.headers,
        body: { display_name: "x".repeat(65) },
      });
      expect(tooLong.status).toBe(400);
      const other = await t.call("PATCH", "/v1/account/profile", {
        headers: u.headers,
        body: { theme: "dark" },
      });
      expect(other.status).toBe(400);
      expect(other.body.error.code).toBe("unknown_field");
    });
  });
});
