/** One answer as the e2e suites read it: its status, how long it took, when it came, its JSON body. */
export interface Call {
  status: number;
  ms: number;
  /** Epoch ms when the answer was read. */
  at: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
}

/** A JSON request to a controller started by the suite (`url` is its base URL). */
export async function call(url: string, method: string, path: string, body?: unknown): Promise<Call> {
  const started = performance.now();
  const res = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    ms: performance.now() - started,
    at: Date.now(),
    body: text ? JSON.parse(text) : undefined,
  };
}
