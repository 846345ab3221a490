import { z } from "@hono/zod-openapi";
import { charCount } from "./validation.js";

/** A string limited in Unicode characters (code points), not UTF-16 units. */
function chars(max: number) {
  return z
    .string()
    .refine((s) => charCount(s) <= max, `must be at most ${max} characters`)
    .openapi({ maxLength: max });
}

// ---- auth (both forms) ----

export const credentialsBody = z
  .strictObject({
    email: z.string().max(320).openapi({ example: "ada@example.com" }),
    password: z.string().max(1024).openapi({
      example: "correct horse battery",
      description: "At least 8 characters and at most 72 bytes in UTF-8 (bcrypt's limit).",
    }),
    refresh_cookie: z
      .boolean()
      .optional()
      .openapi({
        description:
          "Extension (the dashboard): `true` also sets the `vantage_refresh` cookie (HttpOnly, SameSite=Strict, " +
          "Path=/v1, Secure over HTTPS), a rotating refresh credential for `POST /v1/auth/refresh`. The access " +
          "token is the same 900 s JWT either way.",
      }),
  })
  .openapi("Credentials");

export const tokenSchema = z
  .object({
    access_token: z.string().openapi({ description: "A JWT (HS256); send it as `Authorization: Bearer …`" }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().openapi({ example: 900 }),
  })
  .openapi("Token");

export const verifyEmailBody = z.strictObject({
  token: z.string().min(1).max(4096).openapi({ description: "The token from the verification message" }),
});

export const verifyEmailResult = z.object({
  id: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
});

const newPassword = z.string().max(1024).openapi({
  example: "correct horse battery staple",
  description: "At least 8 characters and at most 72 bytes in UTF-8 (bcrypt's limit).",
});

export const passwordResetRequestBody = z
  .strictObject({ email: z.string().max(320).openapi({ example: "ada@example.com" }) })
  .openapi("PasswordResetRequest");

export const passwordResetConfirmBody = z
  .strictObject({
    token: z.string().min(1).max(256).openapi({ description: "The token from the reset message" }),
    password: newPassword,
  })
  .openapi("PasswordResetConfirm");

export const passwordChangeBody = z
  .strictObject({
    current_password: z.string().max(1024),
    new_password: newPassword,
  })
  .openapi("PasswordChange");

export const accountDeleteBody = z
  .strictObject({
    password: z.string().max(1024).openapi({ description: "The account's current password" }),
  })
  .openapi("AccountDelete");

// ---- profile ----

export const localeEnum = z.enum(["cn", "en", "tw"]);
export const themeEnum = z.enum(["system", "light", "dark"]);

export const profileA = z
  .object({
    id: z.string().openapi({ example: "usr_0mhx3k2a9f1e2d3c4b5a6978" }),
    email: z.string().openapi({ description: "Empty string when not bound" }),
    email_verified: z.boolean(),
    phone: z.string().openapi({ description: "Empty string when not bound; always masked" }),
    phone_verified: z.boolean(),
    has_password: z.boolean(),
    display_name: z.string().nullable(),
    avatar_url: z.string().nullable(),
    bio: z.string().nullable(),
    locale: localeEnum,
    timezone: z.string().openapi({ example: "Europe/Berlin" }),
    theme: themeEnum,
    status: z.string().openapi({ example: "active" }),
  })
  .openapi("ProfileA");

export const profilePatchA = z
  .strictObject({
    display_name: chars(64).nullable().optional().openapi({
      description: "At most 64 characters; `null` or blank clears it",
    }),
    bio: chars(500)
      .nullable()
      .optional()
      .openapi({ description: "At most 500 characters; `null` or blank clears it" }),
    locale: localeEnum.optional(),
    timezone: z
      .string()
      .max(64)
      .optional()
      .openapi({ description: "IANA time zone name", example: "Asia/Shanghai" }),
    theme: themeEnum.optional(),
  })
  .openapi("ProfilePatchA", {
    description: "Omitted fields are left unchanged; an unknown field is a 400 `unknown_field`.",
  });

export const profileB = z
  .object({
    id: z.string(),
    email: z.string(),
    display_name: z.string().nullable(),
    plan: z.string().openapi({ example: "free" }),
    email_verified: z.boolean(),
  })
  .openapi("ProfileB");

export const profilePatchB = z
  .strictObject({
    display_name: chars(64).nullable().optional().openapi({
      description: "At most 64 characters; `null` or blank clears it",
    }),
  })
  .openapi("ProfilePatchB");

export const profilePatchResultB = z.object({ id: z.string(), display_name: z.string().nullable() });

// ---- API keys and personal access tokens ----

const keyName = z.string().trim().min(1).max(64).openapi({ example: "ci-server" });
const scopes = z
  .array(z.enum(["read", "write"]))
  .max(2)
  .optional()
  .openapi({ description: "`read` allows GET/HEAD, `write` everything else. Omitted or `[]` → both." });
const expiresDays = z.number().int().min(1).max(90).optional().openapi({ description: "1–90, default 90" });

export const createKeyBodyA = z.strictObject({ name: keyName, scopes, expires_days: expiresDays });
export const createKeyBodyB = z.strictObject({ name: keyName });

const timestamps = {
  created_at: z.string().openapi({ description: "ISO 8601 UTC" }),
  expires_at: z.string().nullable().openapi({ description: "ISO 8601 UTC; null = never" }),
  last_used_at: z.string().nullable().openapi({ description: "ISO 8601 UTC, updated at most once a minute" }),
};

export const keyItemA = z
  .object({
    id: z.string().openapi({ example: "key_0mhx3k2a9f1e2d3c4b5a6978" }),
    name: z.string(),
    key_prefix: z.string().openapi({ example: "sk_live_Ab3dE9" }),
    scopes: z.array(z.enum(["read", "write"])),
    ...timestamps,
  })
  .openapi("ApiKeyA");

export const createdKeyA = keyItemA
  .extend({ key: z.string().openapi({ description: "The whole secret. Shown once; store it now." }) })
  .openapi("CreatedApiKeyA");

export const keyItemB = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ example: "vantage_live_Ab3dE9" }),
    ...timestamps,
  })
  .openapi("ApiKeyB");

export const createdKeyB = keyItemB
  .extend({ key: z.string().openapi({ description: "The whole secret. Shown once; store it now." }) })
  .openapi("CreatedApiKeyB");

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "1–100, default 20" }),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const keyListA = z.object({
  api_keys: z.array(keyItemA),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const keyListB = z.object({ items: z.array(keyItemB) });

export const patItem = z
  .object({
    id: z.string().openapi({ example: "pat_0mhx3k2a9f1e2d3c4b5a6978" }),
    name: z.string(),
    token_prefix: z.string().openapi({ example: "vantage_pat_Ab3dE9" }),
    scopes: z.array(z.enum(["read", "write"])),
    ...timestamps,
  })
  .openapi("PersonalAccessToken");

export const createdPat = patItem
  .extend({ token: z.string().openapi({ description: "The whole token. Shown once; store it now." }) })
  .openapi("CreatedPersonalAccessToken");

export const createPatBody = createKeyBodyA;

export const patList = z.object({
  tokens: z.array(patItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const mcpTokenItem = z
  .object({
    id: z.string().openapi({ example: "mcp_0mhx3k2a9f1e2d3c4b5a6978" }),
    name: z.string(),
    token_prefix: z.string().openapi({ example: "vantage_mcp_Ab3dE9" }),
    scopes: z.array(z.enum(["read", "write"])),
    ...timestamps,
  })
  .openapi("McpToken");

export const createdMcpToken = mcpTokenItem
  .extend({ token: z.string().openapi({ description: "The whole token. Shown once; store it now." }) })
  .openapi("CreatedMcpToken");

export const mcpTokenList = z.object({
  tokens: z.array(mcpTokenItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "key_0mhx3k2a9f1e2d3c4b5a6978" }),
});
