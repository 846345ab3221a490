import type { Verdict } from "./types.js";

export const delivered: Verdict = { ok: true };

export function failed(retry: boolean, reason: string): Verdict {
  return { ok: false, retry, reason };
}

/** An HTTP status outside the vendor's success: 408, 429 and 5xx may pass, anything else will not. */
export function byStatus(status: number, body: string): Verdict {
  return failed(status === 408 || status === 429 || status >= 500, answered(status, body));
}

/** `HTTP 503: <the start of the body>`. */
export function answered(status: number, body: string): string {
  return `HTTP ${status}${body.trim() ? `: ${snippet(body)}` : ""}`;
}

/** The start of an answer, for a reason a person reads. */
export function snippet(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** The answer as a JSON object, or undefined. */
export function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
