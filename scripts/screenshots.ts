/**
 * `pnpm docs:screenshots`: screenshots of the dashboard's main pages into docs/screenshots/, taken in
 * Debian's Chromium against an embedded controller with a little data (an account, a monitor of a
 * loopback site with some runs, a ping task to 127.0.0.1). Desktop width, plus the node directory at
 * phone width.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loopbackSite } from "../apps/controller/src/testing/loopback-site.js";
import { planLimitsEnv } from "../apps/controller/src/testing/plan-limits.js";
import { signIn, startDashboard } from "../apps/web/test/harness.js";

const out = fileURLToPath(new URL("../docs/screenshots/", import.meta.url));
mkdirSync(out, { recursive: true });
const site = loopbackSite();
await site.start();
const d = await startDashboard({
  form: "b",
  env: {
    VANTAGE_SCHEDULER_TICK_MS: "100",
    VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { min_monitor_interval_s: 1 } }),
  },
});
try {
  const page = await d.page();
  const token = await signIn(page, d.url, "screenshots@example.com");
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${d.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then(async (r) => ((await r.json()) as { data: Record<string, unknown> }).data);
  const monitor = await api("POST", "/v1/monitors", {
    name: "Loopback site",
    type: "http",
    url: site.url,
    interval: 1,
  });
  const task = await api("POST", "/v1/probe/ping", { host: "127.0.0.1", count: 3 });
  await new Promise((r) => setTimeout(r, 6000)); // a few monitor runs
  await page.reload(); // the app reads the session signIn stored at load
  const shots: [string, string][] = [
    ["nodes", "#/"],
    ["probe-task", `#/tasks/${task.task_id as string}`],
    ["lookups", "#/lookups"],
    ["monitors", "#/monitors"],
    ["monitor", `#/monitors/${monitor.id as string}`],
    ["keys", "#/keys"],
    ["alerts", "#/alerts"],
    ["account", "#/account"],
  ];
  for (const [name, hash] of shots) {
    await page.goto(`${d.url}/${hash}`);
    await page.waitForLoadState("networkidle").catch(() => {});
    await page.waitForTimeout(1200);
    await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
    console.log(`docs/screenshots/${name}.png`);
  }
  const phone = await d.page({ width: 390, height: 844 });
  await phone.goto(`${d.url}/#/`);
  await phone.waitForTimeout(1500);
  await phone.screenshot({ path: join(out, "nodes-phone.png"), fullPage: true });
  console.log("docs/screenshots/nodes-phone.png");
} finally {
  await d.stop();
  await site.stop();
}
