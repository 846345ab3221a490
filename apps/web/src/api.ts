/**
 * The dashboard is a client of the deployment's own public API: this module is its only way to it. The
 * API form (A or B) comes from the page (`<meta name="vantage-api-form">`, written by the controller);
 * callers use `form` where the forms differ (Form A: `Authorization: Bearer` only, `target`/`interval_s`
 * names; Form B: `X-API-Key` too, `url`/`interval`).
 */
export type Form = "a" | "b";
export const form: Form =
  (document.querySelector('meta[name="vantage-api-form"]') as HTMLMetaElement | null)?.content === "a"
    ? "a"
    : "b";

const TOKEN_KEY = "vantage.token";
const EMAIL_KEY = "vantage.email";
const EXPIRES_KEY = "vantage.expires";

/** Why the last session ended: the user signed out, or it could not be renewed (shown on the sign-in page). */
export type SessionEnd = "signed_out" | "expired";
let lastEnd: SessionEnd | undefined;

/**
 * The signed-in session: the login JWT (15 minutes), when it expires, and the email it was issued for. The
 * JWT is renewed with the `vantage_refresh` cookie (HttpOnly: no script here reads it) before it expires
 * and on a 401, so a page left open stays signed in.
 */
export const session = {
  get token(): string | null {
    return localStorage.getItem(TOKEN_KEY);
  },
  get email(): string | null {
    return localStorage.getItem(EMAIL_KEY);
  },
  /** Milliseconds since the epoch when the token expires (0 when unknown). */
  get expiresAt(): number {
    return Number(localStorage.getItem(EXPIRES_KEY) ?? 0);
  },
  /** Why the last session ended, once: reading it forgets it. */
  takeEnd(): SessionEnd | undefined {
    const end = lastEnd;
    lastEnd = undefined;
    return end;
  },
  set(token: string, email: string, expiresInS = 900): void {
    lastEnd = undefined;
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(EMAIL_KEY, email);
    localStorage.setItem(EXPIRES_KEY, String(Date.now() + expiresInS * 1000));
    for (const l of listeners) l();
  },
  clear(why: SessionEnd = "expired"): void {
    if (why === "signed_out" || localStorage.getItem(TOKEN_KEY) !== null) lastEnd = why;
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(EMAIL_KEY);
    localStorage.removeItem(EXPIRES_KEY);
    for (const l of listeners) l();
  },
};

/** Renew the token this long before it expires. */
const RENEW_BEFORE_MS = 60_000;
let renewing: Promise<boolean> | undefined;

/**
 * Trades the refresh cookie for a new token: one renewal at a time in this page and, where the browser has
 * Web Locks, across its tabs (a tab that waited finds the token another renewed, in the shared storage).
 * False when the session cannot be renewed (no cookie: signed in elsewhere, or revoked).
 */
export function renewSession(stale: string | null = session.token): Promise<boolean> {
  renewing ??= (async () => {
    const work = async () => {
      const now = session.token;
      if (now !== null && now !== stale && session.expiresAt - Date.now() > RENEW_BEFORE_MS) return true;
      const email = session.email;
      let res: Response;
      try {
        res = await fetch("/v1/auth/refresh", { method: "POST", headers: { accept: "application/json" } });
      } catch {
        return false; // offline: keep the session, the next request tries again
      }
      // Not renewed: the caller's request goes ahead, and its 401, if it gets one, ends the session (`read`).
      if (!res.ok) return false;
      const data = ((await res.json()) as { data: { access_token: string; expires_in: number } }).data;
      session.set(data.access_token, email ?? "", data.expires_in);
      return true;
    };
    const locks = (navigator as Navigator & { locks?: LockManager }).locks;
    try {
      return locks ? await locks.request("vantage-session-renewal", work) : await work();
    } finally {
      renewing = undefined;
    }
  })();
  return renewing;
}

/**
 * Signs out: the session is forgotten here at once (the caller may move on to the sign-in page), then the
 * token and the refresh cookie's sign-in are revoked; an expired token is renewed once for that.
 */
export async function signOut(): Promise<void> {
  const token = session.token;
  session.clear("signed_out");
  if (token === null) return;
  const logout = (bearer: string) =>
    fetch("/v1/auth/logout", { method: "POST", headers: { authorization: `Bearer ${bearer}` } });
  try {
    if ((await logout(token)).status !== 401) return;
    const res = await fetch("/v1/auth/refresh", { method: "POST", headers: { accept: "application/json" } });
    if (res.ok) await logout(((await res.json()) as { data: { access_token: string } }).data.access_token);
  } catch {
    // offline: the session is forgotten here all the same
  }
}
const listeners = new Set<() => void>();
export function onSessionChange(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** An error envelope from the API (or a network failure: status 0, code `network`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface CallOptions {
  body?: unknown;
  /** Extra headers (e.g. `Accept`). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Send the session's token (default: when there is one). */
  auth?: boolean;
}

function headersFor(opts: CallOptions): Record<string, string> {
  const h: Record<string, string> = { accept: "application/json", ...opts.headers };
  if (opts.body !== undefined) h["content-type"] = "application/json";
  const token = session.token;
  if (token && opts.auth !== false) h.authorization = `Bearer ${token}`;
  return h;
}

async function send(method: string, path: string, opts: CallOptions): Promise<Response> {
  try {
    return await fetch(path, {
      method,
      headers: headersFor(opts),
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new ApiError(0, "network", "the server could not be reached");
  }
}

/**
 * Sends a request with the session's token, renewed first when it is about to expire; on a 401 the token is
 * renewed and the request sent once more. A 401 that renewal cannot cure clears the session (see `read`).
 */
export async function raw(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
  const token = opts.auth === false ? null : session.token;
  const expiresAt = session.expiresAt;
  if (token !== null && expiresAt > 0 && expiresAt - Date.now() < RENEW_BEFORE_MS) await renewSession(token);
  const res = await send(method, path, opts);
  if (res.status !== 401 || token === null || path.startsWith("/v1/auth/refresh")) return res;
  if (!(await renewSession(session.token === token ? token : null))) return res;
  return send(method, path, opts);
}

export async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const res = await raw(method, path, opts);
  return (await read(res)) as T;
}

/** The page-size query parameter of every paged list: `limit` in Form A, `per_page` in Form B. */
export const pageSize = form === "a" ? "limit" : "per_page";
/** `path` (it may carry a query) asking for page `page` of `size` items, in the form's words. */
export function pagePath(path: string, page: number, size: number): string {
  return `${path}${path.includes("?") ? "&" : "?"}page=${page}&${pageSize}=${size}`;
}
/** The largest page the API serves. */
const MAX_PAGE = 100;

/**
 * Every item of a paged list (`path` without paging parameters; it may carry a query), 100 at a time:
 * pickers and lists that must name all of an account's monitors, channels or policies. Stops at the first
 * short page, so an item deleted meanwhile cannot make it ask forever.
 */
export async function callAllPages<T>(path: string): Promise<{ items: T[]; total: number; page: number }> {
  const pageOf = (n: number) => call<{ items: T[]; total: number }>("GET", pagePath(path, n, MAX_PAGE));
  const first = await pageOf(1);
  const items = [...first.items];
  let last = first;
  for (let n = 2; last.items.length === MAX_PAGE && items.length < first.total; n++) {
    last = await pageOf(n);
    items.push(...last.items);
  }
  return { items, total: first.total, page: 1 };
}

async function read(res: Response): Promise<unknown> {
  const text = await res.text();
  let body: { data?: unknown; error?: { code: string; message: string; details?: unknown } } | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    if (res.status === 401 && session.token) session.clear("expired");
    const e = body?.error;
    throw new ApiError(res.status, e?.code ?? "http_error", e?.message ?? `HTTP ${res.status}`, e?.details);
  }
  return body?.data;
}

export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
}

/**
 * Reads a `text/event-stream` response event by event (fetch, so POST and headers work where EventSource
 * cannot). A JSON answer instead (an error before the stream starts) throws ApiError.
 */
export async function* events(res: Response): AsyncGenerator<SseEvent> {
  if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    await read(res);
    throw new ApiError(res.status, "not_a_stream", "the server did not answer with a stream");
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let event = "message";
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const v = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = v;
        else if (field === "data") data.push(v);
        else if (field === "id") id = v;
      }
      if (data.length === 0) continue;
      const text = data.join("\n");
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: handed over as text
      }
      yield id === undefined ? { event, data: parsed } : { event, data: parsed, id };
    }
  }
}

/** Opens an SSE request (`Accept: text/event-stream`) and yields its events. */
export async function* stream(
  method: string,
  path: string,
  opts: CallOptions = {},
): AsyncGenerator<SseEvent> {
  const res = await raw(method, path, { ...opts, headers: { ...opts.headers, accept: "text/event-stream" } });
  yield* events(res);
}
