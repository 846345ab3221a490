import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { REFRESH_TTL_S } from "./recovery.js";

/**
 * The dashboard's refresh credential travels in one cookie: `HttpOnly` (no script reads it),
 * `SameSite=Strict` (no other site's page sends it), `Path=/v1` (never sent for the dashboard's files), and
 * `Secure` when the request came over HTTPS (directly or, per `X-Forwarded-Proto`, through a proxy).
 */
export const REFRESH_COOKIE = "vantage_refresh";

function secure(c: Context): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  return (c.req.header("x-forwarded-proto") ?? "").split(",")[0]?.trim().toLowerCase() === "https";
}

function cookie(c: Context, value: string, maxAge: number): string {
  return [
    `${REFRESH_COOKIE}=${value}`,
    `Max-Age=${maxAge}`,
    "Path=/v1",
    "HttpOnly",
    "SameSite=Strict",
    ...(secure(c) ? ["Secure"] : []),
  ].join("; ");
}

/** The `Set-Cookie` value that hands the browser a refresh credential. */
export function refreshCookie(c: Context, secret: string): string {
  return cookie(c, secret, REFRESH_TTL_S);
}

/** The `Set-Cookie` value that removes it. */
export function clearedRefreshCookie(c: Context): string {
  return cookie(c, "", 0);
}

export function readRefreshCookie(c: Context): string | undefined {
  const v = getCookie(c, REFRESH_COOKIE);
  return v && /^[0-9A-Za-z]{20,64}$/.test(v) ? v : undefined;
}
