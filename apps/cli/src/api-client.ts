import { ApiError, CliError } from "./errors.js";

export type Form = "a" | "b";

/** Where and as whom to call: the resolved deployment, its form and the credential (if any). */
export interface Api {
  url: string;
  form: Form;
  key: string | undefined;
}

export interface RequestOptions {
  method?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  accept?: string;
  /** Overrides `Api.key` (login verifies a key before storing it). */
  key?: string | undefined;
}

export function normaliseApiUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`not a URL: ${raw}`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CliError(`not an http(s) URL: ${raw}`, 2);
  return url.href.replace(/\/+$/, "");
}

/** One HTTP call; a connection failure becomes a CliError naming the deployment. */
export async function send(
  url: string,
  path: string,
  opts: RequestOptions & { key: string | undefined },
): Promise<Response> {
  const target = new URL(url + path);
  for (const [k, v] of Object.entries(opts.query ?? {}))
    if (v !== undefined) target.searchParams.set(k, String(v));
  const headers: Record<string, string> = { accept: opts.accept ?? "application/json" };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  try {
    return await fetch(target, {
      method: opts.method ?? "GET",
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
}

/** Reads an answer's envelope: `data` on success, an ApiError from `{error: {code, message}}` otherwise. */
export async function readEnvelope<T>(res: Response): Promise<T> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError("bad_response", `HTTP ${res.status}: the answer is not JSON`, res.status);
  }
  const env = parsed as { data?: T; error?: { code?: string; message?: string } };
  if (!res.ok || env.error) {
    throw new ApiError(
      env.error?.code ?? "http_error",
      env.error?.message ?? `HTTP ${res.status}`,
      res.status,
    );
  }
  return env.data as T;
}

export async function call<T>(api: Api, path: string, opts: RequestOptions = {}): Promise<T> {
  return readEnvelope<T>(await send(api.url, path, { ...opts, key: "key" in opts ? opts.key : api.key }));
}

/** The deployment's form, from its OpenAPI document's title ("Vantage API (Form A)"). */
export async function detectForm(url: string): Promise<Form> {
  const res = await send(url, "/v1/openapi.json", { key: undefined });
  if (!res.ok)
    throw new CliError(`${url}/v1/openapi.json answered HTTP ${res.status}: is this a Vantage API?`);
  const doc = (await res.json().catch(() => ({}))) as { info?: { title?: unknown } };
  const match = /\(Form ([AB])\)/.exec(String(doc.info?.title ?? ""));
  if (!match)
    throw new CliError(`cannot tell the API form of ${url} from its OpenAPI title: pass --form a|b`);
  return match[1] === "A" ? "a" : "b";
}
