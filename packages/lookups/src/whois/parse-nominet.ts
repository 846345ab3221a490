import { toUtcDate } from "./parse-date.js";
import { normaliseNameServers, type TextRecord } from "./text-record.js";

/*
 * Nominet (.uk) prints headings on a line of their own and the values indented below them:
 *
 *     Registrar:
 *         Example Registrar Ltd [Tag = EXAMPLE]
 *         URL: https://www.example.net
 *     Relevant dates:
 *         Expiry date:  17-Mar-2027
 *     Name servers:
 *         ns1.example.net           192.0.2.1
 */
export function parseNominet(text: string): TextRecord {
  const sections = new Map<string, string[]>();
  let heading: { name: string; indent: number } | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue;
    const indent = line.length - line.trimStart().length;
    const head = /^\s*([^:]+):\s*$/.exec(line);
    if (head && (!heading || indent <= heading.indent)) {
      heading = { name: (head[1] ?? "").trim().toLowerCase(), indent };
      sections.set(heading.name, []);
      continue;
    }
    if (heading && indent > heading.indent) sections.get(heading.name)?.push(line.trim());
    else heading = undefined;
  }
  const registrarLine = sections.get("registrar")?.[0] ?? null;
  const expiry = (sections.get("relevant dates") ?? [])
    .map((l) => /^expiry date:\s*(.+)$/i.exec(l)?.[1])
    .find((v) => v !== undefined);
  const servers = sections.get("name servers") ?? [];
  return {
    // `[Tag = EXAMPLE]` is Nominet's registrar handle, not part of the name.
    registrar: registrarLine ? registrarLine.replace(/\s*\[tag\s*=[^\]]*\]\s*$/i, "") || null : null,
    expires_at: expiry ? toUtcDate(expiry) : null,
    // "No name servers listed." is a sentence, not a name: the normaliser drops it.
    name_servers: normaliseNameServers(servers),
    referral: null,
    recognised: sections.has("domain name"),
  };
}
