import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestDb } from "../testing/use-test-db.js";
import { htmlPolicy, inlineScriptHashes } from "./security-headers.js";

const sha256 = (s: string) => `sha256-${createHash("sha256").update(s).digest("base64")}`;

describe("security headers", () => {
  it("hashes inline scripts only, exactly as the browser reads them", () => {
    const html = `<script src="/a.js"></script><SCRIPT type="text/javascript">\n  x();\n</SCRIPT ><script>y()</script>`;
    expect(inlineScriptHashes(html)).toEqual([sha256("\n  x();\n"), sha256("y()")]);
    expect(htmlPolicy([sha256("y()")])).toContain(`script-src 'self' '${sha256("y()")}'`);
  });

  describe("on the API docs page (/docs)", () => {
    const db = useTestDb("pglite");

    it.each(["a", "b"] as const)(
      "Form %s: CSP allowing its own script, nosniff, no framing, no referrer",
      async (form) => {
        const t = db.app(form);
        const page = await t.call("GET", "/docs");
        expect(page.status).toBe(200);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
        expect(page.headers.get("x-content-type-options")).toBe("nosniff");
        expect(page.headers.get("x-frame-options")).toBe("DENY");
        expect(page.headers.get("referrer-policy")).toBe("no-referrer");
        const csp = page.headers.get("content-security-policy") ?? "";
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("default-src 'none'");
        expect(csp).toMatch(/script-src 'self'/);
        expect(csp).toMatch(/connect-src 'self'/);
        // The page's inline start-up script is allowed by its hash, and nothing else inline or eval'd.
        const inline = [...page.text.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)];
        expect(inline.length).toBeGreaterThan(0);
        for (const m of inline) expect(csp).toContain(`'${sha256(m[1]!)}'`);
        expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
        // No web fonts from anywhere but this server: the page tells Scalar to load none of its own.
        expect(csp).toContain("font-src 'self' data:;");
        expect(csp).not.toContain("https:");
        expect(page.text).toMatch(/"withDefaultFonts":\s*false/);
        // The script it loads comes from this server, and is not sniffed into anything else.
        expect(page.text).toContain('src="/docs/standalone.js"');
        const script = await t.call("GET", "/docs/standalone.js");
        expect(script.status).toBe(200);
        expect(script.headers.get("x-content-type-options")).toBe("nosniff");
        // JSON answers carry nosniff but no page policy.
        const health = await t.call("GET", "/healthz");
        expect(health.headers.get("x-content-type-options")).toBe("nosniff");
        expect(health.headers.get("content-security-policy")).toBeNull();
      },
    );
  });
});
