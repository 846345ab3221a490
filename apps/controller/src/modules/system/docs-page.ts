import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Scalar } from "@scalar/hono-api-reference";
import type { Router } from "../../http/router.js";

const require = createRequire(import.meta.url);

/**
 * The API reference (Scalar) as this deployment serves it: everything from this server, nothing from the
 * vendor's cloud. Scalar's defaults reach out in several places, each switched off here:
 * - its script comes from a CDN and its fonts from fonts.scalar.com: the script is served below, and the
 *   page uses the system's fonts;
 * - on localhost-like hosts (127.0.0.1, *.localhost, *.test) it shows its developer tools (Share and Deploy
 *   upload the document to Scalar), "Generate MCP" (uploads it too) and the "Ask AI" agent chat (sends it
 *   to Scalar's agent);
 * - "Open API Client" links to client.scalar.com, and the integration name goes along.
 * "Test Request" stays: with no `proxyUrl` the in-page client sends the request from the browser straight
 * to the server the document names (`/`: this one, which the page's CSP, `connect-src 'self'`, enforces).
 * Downloading the document links to /v1/openapi.json.
 */
export const docsPageConfiguration = {
  url: "/v1/openapi.json",
  cdn: "/docs/standalone.js",
  pageTitle: "Vantage API",
  withDefaultFonts: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  telemetry: false,
  documentDownloadType: "direct",
  _integration: null,
} as const;

/** GET /docs (the page) and GET /docs/standalone.js (Scalar's browser bundle, read once on first use). */
export function registerDocsPage(app: Router): void {
  let standalone: string | undefined;
  app.get("/docs/standalone.js", (c) => {
    standalone ??= readFileSync(
      join(dirname(require.resolve("@scalar/api-reference")), "browser", "standalone.js"),
      "utf8",
    );
    c.header("Cache-Control", "public, max-age=3600");
    c.header("Content-Type", "application/javascript; charset=utf-8");
    return c.body(standalone);
  });
  app.get("/docs", Scalar(docsPageConfiguration));
}
