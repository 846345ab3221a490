import { checkAnswer } from "../testing/test-app.js";
import type { Controller } from "./cluster.js";

/** One answer as the e2e suites read it: its status, how long it took, when it came, its JSON body. */
export interface Call {
  status: number;
  ms: number;
  /** Epoch ms when the answer was read. */
  at: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
}

/**
 * A JSON request to a controller started by the suite. Its JSON answer is checked against the OpenAPI
 * document of the controller's form (as `TestApp.call` does in process): a field the document does not
 * promise fails the test, naming the field. `headers` adds to it, e.g. a user's `authorization`.
 */
export async function call(
  to: Pick<Controller, "url" | "form">,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Call> {
  const started = performance.now();
  const res = await fetch(`${to.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (parsed !== undefined && res.headers.get("content-type")?.includes("json"))
    checkAnswer(to.form, method, path, res.status, parsed);
  return { status: res.status, ms, at: Date.now(), body: parsed };
}
