import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser } from "./testing/accounts.js";
import { checkCommonRoutes } from "./testing/common-route-tests.js";
import { dbKinds, forms } from "./testing/test-app.js";
import { useTestDb } from "./testing/use-test-db.js";

describe.each(dbKinds)("common route checks over the OpenAPI document on %s", (kind) => {
  const db = useTestDb(kind);

  it.each(forms)(
    "form %s: every secured route → 401 without credentials, 403 for a read-only key on writes; unknown query → 400",
    async (form) => {
      const t = db.app(form);
      const u = await newUser(t, "common");
      const ro = await issueKey(t, u.userId, { scopes: ["read"] });
      const rw = await issueKey(t, u.userId);
      const report = await checkCommonRoutes(t, {
        readOnlyHeaders: keyHeaders(form, ro.secret),
        writeHeaders: keyHeaders(form, rw.secret),
      });
      expect(report.failures).toEqual([]);
      // The walk really covered the account routes (a sanity check on the walker itself).
      expect(report.checked).toEqual(
        expect.arrayContaining([
          "GET /v1/account/profile without credentials",
          "PATCH /v1/account/profile with a read-only credential",
          "DELETE /v1/account/api-keys/{id} with a read-only credential",
          "POST /v1/auth/logout with a read-only credential",
          "POST /v1/auth/register with malformed JSON",
          "GET /v1/monitors with an unknown query parameter",
          "POST /v1/monitors with an unknown query parameter",
          "GET /v1/nodes with an unknown query parameter",
          "GET /v1/info/dns with an unknown query parameter",
        ]),
      );
      if (form === "a")
        expect(report.checked).toContain("POST /v1/account/tokens with a read-only credential");
    },
  );
});
