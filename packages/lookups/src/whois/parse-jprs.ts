import { toUtcDate } from "./parse-date.js";
import { normaliseNameServers, type TextRecord } from "./text-record.js";

/*
 * JPRS (.jp) prints `[Key]   value` lines, in English when queried as `<domain>/e`, in Japanese otherwise,
 * and for organisation domains (co.jp…) with list letters: `p. [Name Server]  ns1.example.jp`. The expiry
 * is `[Expires on]` / `[有効期限]` for general-use names and only inside `[State] Connected (2027/03/31)` /
 * `[状態] Connected (2027/03/31)` for the others. Dates are JST calendar dates, taken as written. The
 * registrar (the 指定事業者) is not in the answer: null.
 */
const KEYS: Record<string, "name_server" | "expires" | "state"> = {
  "name server": "name_server",
  ネームサーバ: "name_server",
  "expires on": "expires",
  有効期限: "expires",
  state: "state",
  状態: "state",
};

export function parseJprs(text: string): TextRecord {
  const servers: string[] = [];
  let expires: string | null = null;
  let state: string | null = null;
  let domain = false;
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:[a-z]\.\s*)?\[([^\]]+)\]\s*(.*?)\s*$/i.exec(line);
    if (!m) continue;
    const key = (m[1] ?? "").trim().toLowerCase();
    const value = m[2] ?? "";
    if (key === "domain name" || key === "ドメイン名") domain = true;
    const field = KEYS[key];
    if (!field || value === "") continue;
    if (field === "name_server") servers.push(value);
    else if (field === "expires") expires ??= value;
    else state ??= value;
  }
  const fromState = state ? /\((\d{4}\/\d{2}\/\d{2})\)/.exec(state)?.[1] : undefined;
  const date = expires ?? fromState ?? null;
  return {
    registrar: null,
    expires_at: date ? toUtcDate(date) : null,
    name_servers: normaliseNameServers(servers),
    referral: null,
    recognised: domain,
  };
}
