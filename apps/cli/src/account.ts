import { createInterface } from "node:readline";
import { type Api, call } from "./api-client.js";
import { configPath, readConfig, removeConfig, writeConfig } from "./config-store.js";
import { UsageError } from "./errors.js";
import type { CliIo } from "./io.js";

/** The key from stdin: a prompt on a terminal, else the first line of what is piped in. */
async function readKey(io: Pick<CliIo, "stdin" | "stderr">): Promise<string> {
  if (io.stdin.isTTY) io.stderr.write("API key: ");
  const rl = createInterface({ input: io.stdin, terminal: false });
  for await (const line of rl) {
    rl.close();
    return line.trim();
  }
  return "";
}

/** Checks the key with `GET /v1/account/profile`, then stores `{api, key, form}` (mode 600). */
export async function login(
  api: Api,
  key: string | undefined,
  env: NodeJS.ProcessEnv,
  io: Pick<CliIo, "stdin" | "stderr">,
): Promise<string> {
  const given = key ?? (await readKey(io));
  if (!given) throw new UsageError("no API key given (--key, or on stdin)", "login");
  const profile = await call<{ email?: string }>(api, "/v1/account/profile", { key: given });
  const path = configPath(env);
  writeConfig(path, { api: api.url, key: given, form: api.form });
  return `logged in to ${api.url} (Form ${api.form.toUpperCase()}) as ${profile.email ?? "?"}; key stored in ${path}`;
}

export function logout(env: NodeJS.ProcessEnv): string {
  const path = configPath(env);
  const had = readConfig(path)?.key !== undefined;
  removeConfig(path);
  return had ? `logged out: removed ${path}` : "not logged in";
}
