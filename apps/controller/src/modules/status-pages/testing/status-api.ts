import { randomBytes } from "node:crypto";
import type { TestUser } from "../../../testing/accounts.js";
import { insertMonitor } from "../../../testing/monitor-rows.js";
import type { TestApp } from "../../../testing/test-app.js";

/** A slug no other test of the run has taken. */
export const uniqueSlug = (tag = "page") => `${tag}-${randomBytes(4).toString("hex")}`;

/** A monitor of `user` written straight to the table, in `state`; returns its id and seq. */
export async function monitorOf(
  t: TestApp,
  user: TestUser,
  name: string,
  state: "up" | "down" | "unknown" = "up",
) {
  const id = `mon_${randomBytes(8).toString("hex")}`;
  const seq = await insertMonitor(t.db.kysely, id, user.userId, { name, state });
  return { id, seq };
}

/** Creates a page through the API and returns its body's `data`; throws on anything but 201. */
export async function createPage(t: TestApp, user: TestUser, body: Record<string, unknown>) {
  const r = await t.call("POST", "/v1/status-pages", { headers: user.headers, body });
  if (r.status !== 201) throw new Error(`create page: ${r.status} ${r.text}`);
  return r.body.data as { id: string; slug: string; public_url: string };
}

/**
 * Checks that `xml` is well-formed as far as a test needs: one root, every tag closed in order, no bare `&`
 * or `<` in text. Returns the problem, or undefined.
 */
export function xmlProblem(xml: string): string | undefined {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, "");
  const stack: string[] = [];
  const tag =
    /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->/g;
  let last = 0;
  let roots = 0;
  for (const m of body.matchAll(tag)) {
    const text = body.slice(last, m.index);
    if (/<|&(?!(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|apos);)/i.test(text)) return `bad text: ${text.slice(0, 40)}`;
    last = m.index + m[0].length;
    if (!m[2]) continue;
    if (m[1]) {
      if (stack.pop() !== m[2]) return `unbalanced </${m[2]}>`;
    } else if (!m[4]) {
      if (stack.length === 0) roots++;
      stack.push(m[2]);
    } else if (stack.length === 0) roots++;
  }
  if (body.slice(last).trim() !== "") return "text after the root";
  if (stack.length > 0) return `unclosed <${stack.at(-1)}>`;
  return roots === 1 ? undefined : `${roots} roots`;
}
