import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context } from "hono";
import { type AppEnv, requestIdOf } from "../../http/context.js";
import { errorBody } from "../../http/errors.js";
import type { Router } from "../../http/router.js";
import { htmlPolicy } from "../../http/security-headers.js";

const types: Record<string, string> = {
  ".js": "application/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** Where the dashboard's build lands: `apps/web/dist` of this checkout, unless `VANTAGE_WEB_DIR` says. */
export function webDir(configured: string | undefined): string {
  return configured ? resolve(configured) : fileURLToPath(new URL("../../../../web/dist/", import.meta.url));
}

/**
 * The dashboard (apps/web, a client of this API) at `/` for browsers and its files at `/app/*`. Files
 * are read from the build directory as they are asked for (cached; a build made after the start is
 * picked up); only names the directory holds are served. Without a build, `/` tells how to make one.
 */
export function dashboard(dir: string, form: "a" | "b") {
  const cache = new Map<string, Buffer>();
  let names: Set<string> | undefined;
  const listing = () => {
    if (!names || names.size === 0) names = new Set(existsSync(dir) ? readdirSync(dir) : []);
    return names;
  };
  const built = () => listing().has("app.js");
  const page = (body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="vantage-api-form" content="${form}"><title>Vantage</title>` +
    `<link rel="stylesheet" href="/app/app.css"><link rel="stylesheet" href="/app/uplot.css">` +
    `</head><body>${body}</body></html>`;
  const app = page(
    `<div id="app"></div><noscript>The Vantage dashboard needs JavaScript; the API is documented at <a href="/docs">/docs</a>.</noscript>` +
      `<script type="module" src="/app/app.js"></script>`,
  );
  const unbuilt = page(
    `<main style="max-width:40em;margin:3em auto;font-family:system-ui,sans-serif"><h1>Vantage</h1>` +
      `<p>The dashboard is not built on this server: run <code>pnpm web:build</code> (<code>pnpm start</code> ` +
      `does it) and reload. The API works meanwhile: <a href="/docs">/docs</a>.</p></main>`,
  );
  return {
    /** The dashboard page; its headers (CSP, no framing) set here, whatever else `/` answers. */
    page(c: Context<AppEnv>) {
      c.header("Content-Security-Policy", htmlPolicy([]));
      c.header("X-Frame-Options", "DENY");
      c.header("Referrer-Policy", "no-referrer");
      c.header("Cache-Control", "no-cache");
      return c.html(built() ? app : unbuilt);
    },
    routes(router: Router) {
      router.get("/app/:file", (c) => {
        const name = c.req.param("file");
        if (!listing().has(name)) {
          names = undefined; // a build since the last look
          if (!listing().has(name))
            return c.json(errorBody("not_found", "no such file", requestIdOf(c)), 404);
        }
        let body = cache.get(name);
        if (!body) {
          body = readFileSync(join(dir, name));
          cache.set(name, body);
        }
        c.header("Content-Type", types[extname(name)] ?? "application/octet-stream");
        c.header("Cache-Control", "no-cache");
        return c.body(new Uint8Array(body));
      });
    },
  };
}
