/** Registers a fresh account through the API and creates an API key for it: its login JWT and the key. */
export async function registerWithKey(
  call: (path: string, init?: RequestInit) => Response | Promise<Response>,
): Promise<{ jwt: string; apiKey: string }> {
  const json = { "content-type": "application/json" };
  const reg = await call("/v1/auth/register", {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      email: `bench-${Date.now()}-${Math.random()}@example.com`,
      password: "bench password",
    }),
  });
  const jwt = ((await reg.json()) as { data: { access_token: string } }).data.access_token;
  const key = await call("/v1/account/api-keys", {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${jwt}` },
    body: JSON.stringify({ name: "bench" }),
  });
  const apiKey = ((await key.json()) as { data: { key: string } }).data.key;
  return { jwt, apiKey };
}
