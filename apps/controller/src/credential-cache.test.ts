import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser } from "./testing/accounts.js";
import { dbKinds, forms } from "./testing/test-app.js";
import { useTestDb } from "./testing/use-test-db.js";

/**
 * The composition root creates one accounts context, so there is exactly one credential cache per process:
 * a revocation evicts the key for every route at once, also for routes of other modules that took the key
 * into the cache moments before (a second cache would go on accepting it for its TTL, 10 s).
 */
describe.each(dbKinds)("one credential cache per process on %s", (kind) => {
  const db = useTestDb(kind);

  it.each(forms)(
    "form %s: a revoked key is refused at once by every route that had accepted it",
    async (form) => {
      const t = db.app(form);
      const u = await newUser(t, "cache");
      const key = await issueKey(t, u.userId);
      const headers = keyHeaders(form, key.secret);
      // Accepted (and cached) by an accounts route and by a probes route.
      const profile = await t.call("GET", "/v1/account/profile", { headers });
      expect(profile.status).toBe(200);
      const quota = await t.call("GET", "/v1/probe/quota", { headers });
      expect(quota.status).toBe(200);
      expect(quota.body.data.caller).toBe("account");

      const revoked = await t.call("DELETE", `/v1/account/api-keys/${key.id}`, { headers: u.headers });
      expect(revoked.status).toBe(200);

      for (const path of ["/v1/account/profile", "/v1/probe/quota"]) {
        const res = await t.call("GET", path, { headers });
        expect(res.status, path).toBe(401);
        expect(res.body.error.code).toBe("unauthorized");
      }
    },
  );
});
