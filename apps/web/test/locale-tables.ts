import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export const webSrc = join(import.meta.dirname, "../src");

/** One `{en, cn, tw}` table of the dashboard's source: each locale's keys and their literal texts. */
export interface LocaleTable {
  /** `file:line` of the table, relative to apps/web/src. */
  where: string;
  /** The variable the table is bound to (`const t = messages({…})`, `export const x = {…}`), if any. */
  name: string | undefined;
  /** key → text; `undefined` where the text is not a literal (a call, a concatenation). */
  values: Record<"en" | "cn" | "tw", Map<string, string | undefined>>;
}

const locales = ["en", "cn", "tw"] as const;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

const propName = (p: ts.ObjectLiteralElementLike): string | undefined =>
  p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) || ts.isNumericLiteral(p.name))
    ? p.name.text
    : undefined;

function literal(e: ts.Expression): string | undefined {
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (ts.isParenthesizedExpression(e)) return literal(e.expression);
  return undefined;
}

/** The variable an expression is bound to, through `messages(…)`, `satisfies` and `as`. */
function boundName(node: ts.Node): string | undefined {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) return n.name.text;
    if (
      !ts.isCallExpression(n) &&
      !ts.isSatisfiesExpression(n) &&
      !ts.isAsExpression(n) &&
      !ts.isParenthesizedExpression(n)
    )
      return undefined;
  }
  return undefined;
}

/**
 * Every object literal of apps/web/src whose properties include `en`, `cn` and `tw`, each an object
 * literal: the tables given to `messages()` and the ones bound first and given to it later. Read from the
 * source, so tables inside `.tsx` pages are read without rendering them.
 */
export function localeTables(): LocaleTable[] {
  const tables: LocaleTable[] = [];
  for (const file of sourceFiles(webSrc)) {
    const text = readFileSync(file, "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node)) {
        const byLocale = new Map<string, ts.ObjectLiteralExpression>();
        for (const p of node.properties) {
          const name = propName(p);
          if (name && ts.isPropertyAssignment(p) && ts.isObjectLiteralExpression(p.initializer))
            byLocale.set(name, p.initializer);
        }
        if (locales.every((l) => byLocale.has(l))) {
          const values = {} as LocaleTable["values"];
          for (const l of locales) {
            values[l] = new Map();
            for (const p of byLocale.get(l)!.properties) {
              const key = propName(p);
              if (key === undefined) continue;
              values[l].set(key, ts.isPropertyAssignment(p) ? literal(p.initializer) : undefined);
            }
          }
          const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
          tables.push({ where: `${relative(webSrc, file)}:${line}`, name: boundName(node), values });
          return;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return tables;
}

/**
 * Words a Chinese text may keep in Latin letters: protocol and record names, header and vendor names.
 * Any other word in a cn or tw text, or a cn/tw text equal to the English one, is an untranslated string.
 */
export const keptWords = new Set([
  "API",
  "ASN",
  "CA",
  "DNS",
  "HSTS",
  "HTTP",
  "HTTPS",
  "ICMP",
  "IP",
  "IPv4",
  "IPv6",
  "JSON",
  "MCP",
  "OCSP",
  "PagerDuty",
  "Ping",
  "RFC",
  "SCT",
  "SSL",
  "Slack",
  "Strict-Transport-Security",
  "TCP",
  "TLS",
  "TTL",
  "URL",
  "Webhook",
  "WHOIS",
  "AEAD",
  "Expect",
  "includeSubDomains",
  "max-age",
  "preload",
]);

export const placeholder = /\{\w+\}/g;
/** The Latin words of a text, placeholders left out (`http://` and `host:port` count as words too). */
const latinWords = (s: string) => s.replace(placeholder, "").match(/[A-Za-z][A-Za-z0-9+-]*/g) ?? [];
/** Words not on the kept list: what a translator still has to translate. */
export const untranslated = (s: string) =>
  latinWords(s).filter((w) => !keptWords.has(w) && !/^(https?|host|port)$/.test(w));

const cjk = /[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/;

/**
 * Whether a cn or tw text is still English: no Chinese character in it, and Latin words other than the
 * kept ones. (A Chinese sentence may name English things: menu paths of a vendor's console, headers.)
 */
export const stillEnglish = (s: string) => !cjk.test(s) && untranslated(s).length > 0;
