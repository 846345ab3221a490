import { randomBytes } from "node:crypto";
import type { Scope } from "../http/context.js";
import { secretPrefix } from "../modules/accounts/index.js";
import type { Form, TestApp } from "./test-app.js";

export const PASSWORD = "correct horse battery";

export function uniqueEmail(tag = "user"): string {
  return `${tag}-${randomBytes(5).toString("hex")}@Example.COM`;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export interface TestUser {
  email: string;
  token: string;
  userId: string;
  headers: Record<string, string>;
}

/** Registers a fresh user through the API and reads its id from the profile. */
export async function newUser(t: TestApp, tag = "user"): Promise<TestUser> {
  const email = uniqueEmail(tag);
  const reg = await t.call("POST", "/v1/auth/register", { body: { email, password: PASSWORD } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const token = reg.body.data.access_token as string;
  const profile = await t.call("GET", "/v1/account/profile", { headers: bearer(token) });
  return { email, token, userId: profile.body.data.id as string, headers: bearer(token) };
}

/** Marks the account's email address verified, as `POST /v1/auth/verify-email` would. */
export async function markVerified(t: TestApp, userId: string): Promise<void> {
  await t.db.kysely.updateTable("users").set({ email_verified: true }).where("id", "=", userId).execute();
}

/** Issues a key straight through the service (Form B has no API for scoped keys). */
export async function issueKey(
  t: TestApp,
  userId: string,
  opts: { scopes?: Scope[]; expiresDays?: number | null; kind?: "api_key" | "pat" } = {},
): Promise<{ id: string; secret: string }> {
  const kind = opts.kind ?? "api_key";
  const { row, secret } = await t.modules.accounts.service.createKey(userId, {
    kind,
    name: "test key",
    scopes: opts.scopes,
    expiresDays: opts.expiresDays ?? null,
    secretPrefix: secretPrefix(t.config.VANTAGE_API_FORM, kind),
  });
  return { id: row.id, secret };
}

/** How the form sends an API key: Form A only as Bearer; Form B as X-API-Key (Bearer works too). */
export function keyHeaders(form: Form, secret: string): Record<string, string> {
  return form === "a" ? bearer(secret) : { "x-api-key": secret };
}
