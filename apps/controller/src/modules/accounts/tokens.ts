import { errors, type JWTPayload, jwtVerify, SignJWT } from "jose";

/** Access tokens live 15 minutes (the spec's `expires_in: 900`). */
export const ACCESS_TOKEN_TTL_S = 900;
/** An email verification link stays valid two days. */
export const EMAIL_TOKEN_TTL_S = 2 * 24 * 3600;

const ISSUER = "vantage";
const ACCESS_AUDIENCE = "vantage-api";
const EMAIL_AUDIENCE = "vantage-verify-email";

export function tokenKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function signAccessToken(
  key: Uint8Array,
  userId: string,
  jti: string,
  nowS: number,
): Promise<string> {
  return unsigned({}, ACCESS_AUDIENCE, userId)
    .setJti(jti)
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + ACCESS_TOKEN_TTL_S)
    .sign(key);
}

/**
 * Checks signature (HS256 only: `alg: none` and other algorithms are refused), issuer, audience and
 * expiry. Undefined for any token that fails; the reason is not the caller's business.
 */
export async function verifyAccessToken(
  key: Uint8Array,
  token: string,
): Promise<{ userId: string; jti: string } | undefined> {
  const payload = await verified(key, token, ACCESS_AUDIENCE, ["sub", "jti", "exp"]);
  if (!payload) return undefined;
  return { userId: payload.sub as string, jti: payload.jti as string };
}

export async function signEmailToken(
  key: Uint8Array,
  userId: string,
  email: string,
  nowS: number,
): Promise<string> {
  return unsigned({ email }, EMAIL_AUDIENCE, userId)
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + EMAIL_TOKEN_TTL_S)
    .sign(key);
}

export async function verifyEmailToken(
  key: Uint8Array,
  token: string,
): Promise<{ userId: string; email: string } | undefined> {
  const payload = await verified(key, token, EMAIL_AUDIENCE, ["sub", "exp"]);
  if (typeof payload?.email !== "string") return undefined;
  return { userId: payload.sub as string, email: payload.email };
}

/** Our HS256 token for `audience` about `userId`, before its times are set and it is signed. */
function unsigned(claims: JWTPayload, audience: string, userId: string): SignJWT {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setSubject(userId);
}

/** The payload of a token of ours for `audience` (HS256 only), or undefined for any token that fails. */
async function verified(
  key: Uint8Array,
  token: string,
  audience: string,
  requiredClaims: string[],
): Promise<JWTPayload | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ["HS256"],
      issuer: ISSUER,
      audience,
      requiredClaims,
    });
    return payload;
  } catch (err) {
    if (err instanceof errors.JOSEError || err instanceof TypeError) return undefined;
    throw err;
  }
}
