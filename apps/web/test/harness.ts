import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumPath } from "@vantage/testing";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { loadConfig } from "../../controller/src/config.js";
import { createLogger } from "../../controller/src/logger.js";
import { type Runtime, startRuntime } from "../../controller/src/runtime.js";
import { lendPgliteDb } from "../../controller/src/testing/pglite-pool.js";

const webRoot = fileURLToPath(new URL("..", import.meta.url));

let dashboardChecked = false;

/**
 * Builds the dashboard when a source is newer than the build (what `pnpm start` does too), once per test
 * process: the sources do not change during a run, and each check started a node process (about 0.3 s).
 */
export function buildDashboard(): void {
  if (dashboardChecked) return;
  execFileSync(process.execPath, [join(webRoot, "build.mjs"), "--if-stale"], { stdio: "pipe" });
  dashboardChecked = true;
}

export interface Dashboard {
  /** `http://127.0.0.1:<port>` of the controller serving the dashboard and the API. */
  url: string;
  runtime: Runtime;
  browser: Browser;
  /**
   * A fresh page (its own storage). Requests to anything but the controller are aborted and listed in
   * `outside`; console errors and page errors are listed in `errors`.
   */
  page(opts?: { width?: number; height?: number }): Promise<Page & { outside: string[]; errors: string[] }>;
  stop(): Promise<void>;
}

/**
 * The embedded controller (PGlite, the in-process agent, every role) on a free loopback port with the
 * dashboard built, and a headless Chromium. Probes may target loopback (test sites).
 */
export async function startDashboard(
  opts: { form?: "a" | "b"; env?: Record<string, string> } = {},
): Promise<Dashboard> {
  buildDashboard();
  const dir = mkdtempSync(join(tmpdir(), "vantage-web-"));
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    VANTAGE_DATA_DIR: dir,
    VANTAGE_API_FORM: opts.form ?? "b",
    VANTAGE_LOG_LEVEL: "silent",
    VANTAGE_ACCESS_LOG: "false",
    VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
    VANTAGE_REGISTER_LIMIT_IP: "0",
    VANTAGE_DNSBL_ZONES: "none",
    VANTAGE_WEB_DIR: join(webRoot, "dist"),
    ...opts.env,
  });
  const runtime = await startRuntime(config, createLogger("silent"), {
    db: (await lendPgliteDb()).db,
  });
  const url = runtime.url!.replace(/\/$/, "");
  const browser = await acquireBrowser();
  const contexts: BrowserContext[] = [];
  const host = new URL(url).host;
  return {
    url,
    runtime,
    browser,
    async page(size = {}) {
      const context = await browser.newContext({
        viewport: { width: size.width ?? 1280, height: size.height ?? 860 },
        locale: "en-US",
      });
      contexts.push(context);
      const page = (await context.newPage()) as Page & { outside: string[]; errors: string[] };
      page.outside = [];
      page.errors = [];
      await page.route("**/*", (route) => {
        const u = new URL(route.request().url());
        if (u.host === host || u.protocol === "data:") return route.continue();
        page.outside.push(route.request().url());
        return route.abort();
      });
      page.on("console", (m) => {
        if (m.type() === "error") page.errors.push(m.text());
      });
      page.on("pageerror", (e) => page.errors.push(String(e)));
      return page;
    },
    async stop() {
      await Promise.allSettled(contexts.map((c) => c.close()));
      releaseBrowser();
      await runtime.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One headless Chromium per test process, shared by the dashboards it starts one after the other (a file's
 * two forms, and the next file: workers run file after file): a launch cost about 2 s of a core. Each
 * dashboard's pages live in their own contexts (own storage), closed by its `stop`. The browser is closed
 * once no dashboard has used it for a few seconds, or with the process; one that went away (a crash) is
 * launched again.
 */
interface SharedBrowser {
  browser: Promise<Browser>;
  users: number;
  idle?: NodeJS.Timeout;
}
let shared: SharedBrowser | undefined;

async function acquireBrowser(): Promise<Browser> {
  if (shared) {
    clearTimeout(shared.idle);
    shared.users++;
    const browser = await shared.browser.catch(() => undefined);
    if (browser?.isConnected()) return browser;
    shared.users--;
    shared = undefined;
  }
  const launched = chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const entry: SharedBrowser = { browser: launched, users: 1 };
  shared = entry;
  try {
    return await launched;
  } catch (err) {
    if (shared === entry) shared = undefined;
    throw err;
  }
}

function releaseBrowser(): void {
  const entry = shared;
  if (!entry) return;
  entry.users = Math.max(0, entry.users - 1);
  if (entry.users > 0) return;
  entry.idle = setTimeout(() => {
    if (shared !== entry || entry.users > 0) return;
    shared = undefined;
    void entry.browser.then((b) => b.close()).catch(() => {});
  }, 5_000);
  entry.idle.unref();
}

/** Registers an account through the page's own API and signs the page in (its token in localStorage). */
export async function signIn(page: Page, url: string, email: string, password = "correct horse battery") {
  const res = await fetch(`${url}/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status}`);
  const token = ((await res.json()) as { data: { access_token: string } }).data.access_token;
  await page.goto(`${url}/`);
  // A string, not a function: this file is type-checked without the DOM's types.
  await page.evaluate(
    `localStorage.setItem("vantage.token", ${JSON.stringify(token)}); localStorage.setItem("vantage.email", ${JSON.stringify(email)})`,
  );
  return token;
}

/** The deployment's API as one signed-in account: `data` of each answer; an answer not 2xx fails the test. */
export function apiAs(url: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { data: Record<string, unknown> }).data;
  };
}
