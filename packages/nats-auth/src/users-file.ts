import type { NatsUser } from "./credentials.js";

/**
 * The users file that `deploy/nats/nats-server.conf` includes inside `authorization { }`. It is written in
 * the server's own syntax, one user per line as JSON (which nats-server reads), tagged with a trailing
 * `# vantage:<key>` comment so the command can find, add and replace entries without a general parser.
 */

/** `controller` or `agent:<node id>`. */
export type UserKey = "controller" | `agent:${string}`;

export interface UsersEntry {
  key: UserKey;
  user: NatsUser;
}

export const agentKey = (nodeId: string): UserKey => `agent:${nodeId}`;

const HEADER = [
  "# Vantage NATS users, included by nats-server.conf inside `authorization { }`.",
  "# Managed by `pnpm agent:add` and `pnpm nats:controller-user`: one user per line, tagged `# vantage:<who>`.",
  "# Apply changes with `nats-server --signal reload` (or `systemctl reload nats-server`).",
];

export function renderUsers(entries: readonly UsersEntry[]): string {
  const keys = new Set<string>();
  const nkeys = new Set<string>();
  for (const e of entries) {
    if (keys.has(e.key)) throw new Error(`duplicate users entry ${e.key}`);
    if (nkeys.has(e.user.nkey)) throw new Error(`duplicate nkey in users entry ${e.key}`);
    keys.add(e.key);
    nkeys.add(e.user.nkey);
  }
  const lines = entries.map((e) => `  ${JSON.stringify(e.user)} # vantage:${e.key}`);
  return [...HEADER, "users: [", ...lines, "]", ""].join("\n");
}

const entryLine = /^\s*(\{.*\})\s*#\s*vantage:(controller|agent:[a-z0-9-]+)\s*$/;

/** Reads a users file this module wrote; anything it did not write is an error naming the line. */
export function parseUsers(text: string): UsersEntry[] {
  const entries: UsersEntry[] = [];
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line === "users: [" || line === "]") return;
    const m = entryLine.exec(raw);
    if (!m) throw new Error(`users file line ${i + 1} is not a managed entry: ${line.slice(0, 80)}`);
    let user: NatsUser;
    try {
      user = JSON.parse(m[1]!) as NatsUser;
    } catch {
      throw new Error(`users file line ${i + 1} is not valid JSON`);
    }
    if (typeof user.nkey !== "string") throw new Error(`users file line ${i + 1} has no nkey`);
    entries.push({ key: m[2] as UserKey, user });
  });
  return entries;
}

/** Adds `entry`, or replaces the entry with the same key when `replace` is set (key rotation). */
export function upsertUser(
  entries: readonly UsersEntry[],
  entry: UsersEntry,
  opts: { replace: boolean },
): UsersEntry[] {
  const existing = entries.findIndex((e) => e.key === entry.key);
  if (existing === -1) return [...entries, entry];
  if (!opts.replace) {
    throw new Error(`${entry.key} already has a key in the users file; pass --rotate to replace it`);
  }
  return entries.map((e, i) => (i === existing ? entry : e));
}

export function removeUser(entries: readonly UsersEntry[], key: UserKey): UsersEntry[] {
  return entries.filter((e) => e.key !== key);
}
