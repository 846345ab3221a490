import { createHash } from "node:crypto";

/**
 * The Content-Security-Policy of an HTML page. Scripts: this server's files and the page's own inline
 * scripts by hash (no `'unsafe-inline'`, no `eval`). Styles may be inline: the API reference page (Scalar)
 * ships a `<style>` block and sets styles from script. Fonts come from this server or `data:` URLs only: the
 * docs page is configured with `withDefaultFonts: false`, so Scalar's stylesheet names no font host. Data
 * goes to this server only; nothing may frame the page, and it sends no forms anywhere.
 */
export function htmlPolicy(inlineScriptHashes: readonly string[]): string {
  const scripts = ["'self'", ...inlineScriptHashes.map((h) => `'${h}'`)].join(" ");
  return [
    "default-src 'none'",
    `script-src ${scripts}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const inlineScript = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;

/** `sha256-…` of each inline `<script>` of `html`, as a CSP source expression wants it. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(inlineScript)) {
    if (/\bsrc\s*=/i.test(m[1] ?? "")) continue;
    hashes.push(
      `sha256-${createHash("sha256")
        .update(m[2] ?? "", "utf8")
        .digest("base64")}`,
    );
  }
  return hashes;
}

/** Where a header of the response about to be sent is set: Node's response object, or one that sets it on the `Response`. */
export interface HeaderTarget {
  setHeader(name: string, value: string): unknown;
}

/**
 * The headers of HTML pages (the Scalar docs page, the dashboard): a Content-Security-Policy, a refusal to
 * be framed and no Referer for the links they follow. Whether a route answers HTML is learnt from its first
 * answer and remembered per route pattern, so a JSON route pays a map lookup per request, not a look at its
 * response headers (turning the server's plain header object into `Headers` costs a tenth of a small
 * route's throughput). A route's successes are all one kind of content.
 */
export class PageHeaders {
  private readonly servesHtml = new Map<string, boolean>();
  private lastHtml: string | undefined;
  private lastPolicy = htmlPolicy([]);

  /**
   * After the handler of a GET or HEAD request on `route` answered `res`: adds the page headers if it
   * answered HTML. Returns a promise only for HTML (its inline scripts are read for the policy's hashes).
   */
  apply(res: Response, route: string, target: HeaderTarget): Promise<void> | undefined {
    let html = this.servesHtml.get(route);
    if (html === undefined) {
      html = /^text\/html\b/i.test(res.headers.get("content-type") ?? "");
      // Learnt from a success: an error is JSON on every route. Unmatched paths share one pattern.
      if (route !== "unmatched" && (html || res.status < 300)) this.servesHtml.set(route, html);
    }
    if (!html) return undefined;
    // A page that sets its own policy (status pages: no inline script) is not read: its body may be large.
    if (res.headers.has("content-security-policy")) {
      target.setHeader("X-Frame-Options", "DENY");
      target.setHeader("Referrer-Policy", "no-referrer");
      return undefined;
    }
    return this.secure(res, target);
  }

  private async secure(res: Response, target: HeaderTarget): Promise<void> {
    // A HEAD answer has no body: the policy of the last page seen stands.
    const page = res.body === null ? this.lastHtml : await res.clone().text();
    // Pages are few and fixed: the policy of the last page seen is kept.
    if (page !== undefined && page !== this.lastHtml) {
      this.lastPolicy = htmlPolicy(inlineScriptHashes(page));
      this.lastHtml = page;
    }
    target.setHeader("Content-Security-Policy", this.lastPolicy);
    target.setHeader("X-Frame-Options", "DENY");
    target.setHeader("Referrer-Policy", "no-referrer");
  }
}
