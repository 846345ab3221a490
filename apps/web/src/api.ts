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

/** The signed-in session: the login JWT (15 minutes) and the email it was issued for. */
export const session = {
  get token(): string | null {
    return localStorage.getItem(TOKEN_KEY);
  },
  get email(): string | null {
    return localStorage.getItem(EMAIL_KEY);
  },
  set(token: string, email: string): void {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(EMAIL_KEY, email);
    for (const l of listeners) l();
  },
  clear(): void {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(EMAIL_KEY);
    for (const l of listeners) l();
  },
};
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

/** Sends a request; its `data`, or throws ApiError. A 401 with a session clears it (expired token). */
export async function raw(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
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

export async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const res = await raw(method, path, opts);
  return (await read(res)) as T;
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
    if (res.status === 401 && session.token) session.clear();
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
