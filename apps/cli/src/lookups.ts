import { pastedHost } from "@vantage/protocol/pasted-host";
import type { Form } from "./api-client.js";
import { UsageError } from "./errors.js";
import { type Paint, table } from "./table.js";

export const LOOKUP_COMMANDS = ["ip", "whois", "ssl", "dns-records", "icp", "reputation"] as const;
export type LookupCommand = (typeof LOOKUP_COMMANDS)[number];

/** Each lookup's path and the name its query takes in each form (docs/api-forms.md, "Information lookups"). */
const LOOKUPS: Record<LookupCommand, { path: string; param: Record<Form, string> }> = {
  ip: { path: "/v1/info/ip", param: { a: "q", b: "ip" } },
  whois: { path: "/v1/info/whois", param: { a: "q", b: "q" } },
  ssl: { path: "/v1/info/ssl", param: { a: "q", b: "q" } },
  "dns-records": { path: "/v1/info/dns", param: { a: "q", b: "domain" } },
  icp: { path: "/v1/info/icp", param: { a: "q", b: "domain" } },
  reputation: { path: "/v1/ip/reputation", param: { a: "q", b: "q" } },
};

export function lookupRequest(
  form: Form,
  command: LookupCommand,
  q: string,
  extra: { port?: number | undefined; type?: string | undefined },
): { path: string; query: Record<string, string | number | undefined> } {
  const spec = LOOKUPS[command];
  let port = extra.port;
  if (command === "ssl") {
    // The API takes a bare domain and a port apart; `host:port` and a pasted URL are split here, as tcp's.
    const split = pastedHost(q);
    if (port !== undefined && split.port !== undefined && port !== split.port)
      throw new UsageError(`the domain names port ${split.port} but --port says ${port}`, "ssl");
    q = split.host;
    port ??= split.port;
  }
  return {
    path: spec.path,
    query: {
      [spec.param[form]]: q,
      ...(command === "ssl" ? { port } : {}),
      ...(command === "dns-records" ? { type: extra.type } : {}),
    },
  };
}

const scalar = (v: unknown) => v === null || typeof v !== "object";
const show = (v: unknown) => (v === null || v === undefined ? "-" : String(v));

/**
 * A lookup's answer as text: scalar fields (nested objects flattened to `a.b`) as aligned `key  value`
 * lines, lists of scalars joined, lists of objects as tables under their name.
 */
export function renderLookup(data: Record<string, unknown>, p: Paint): string {
  const pairs: [string, string][] = [];
  const tables: string[] = [];
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix + k;
      if (Array.isArray(v) && v.length && !v.every(scalar)) {
        const rows = v.map((item): Record<string, unknown> => (scalar(item) ? { value: item } : item));
        const headers = [...new Set(rows.flatMap((r) => Object.keys(r)))];
        const cells = rows.map((r) => headers.map((h) => (scalar(r[h]) ? show(r[h]) : JSON.stringify(r[h]))));
        tables.push(
          `${p.bold(`${key}:`)}\n${table(
            headers.map((h) => h.toUpperCase()),
            cells,
          )}`,
        );
      } else if (Array.isArray(v)) pairs.push([key, v.length ? v.join(", ") : "-"]);
      else if (v !== null && typeof v === "object") walk(v as Record<string, unknown>, `${key}.`);
      else pairs.push([key, show(v)]);
    }
  };
  walk(data, "");
  const width = Math.max(0, ...pairs.map(([k]) => k.length));
  const lines = pairs.map(([k, v]) => `${p.bold(k.padEnd(width))}  ${v}`);
  return [lines.join("\n"), ...tables].join("\n\n");
}
