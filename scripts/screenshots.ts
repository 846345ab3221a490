/**
 * `pnpm docs:screenshots`: every page of the dashboard, in English and Simplified Chinese, at desktop
 * (1280 px) and phone (390 × 844) width, into docs/screenshots/<page>-<en|zh-CN>-<desktop|phone>.png.
 * Taken in Debian's Chromium against an embedded controller with four agents besides its own (test
 * doubles on its in-process bus, in DE, US, SG and BR, answering like real ones) and some data: an
 * account with an API key, a monitor with an hour of runs spread over the nodes (one failure, two missed
 * runs), a webhook channel and its policy, a ping task from three nodes. Nothing leaves loopback. Every
 * route main.tsx declares must have a shot here, or the script fails naming it. The images are quantised
 * by `pngquant` when it is installed (`apt-get install pngquant`), about a third of the size. Chinese text
 * needs a CJK font (`apt-get install fonts-wqy-microhei` or `fonts-noto-cjk`); without one the script says so.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { doneReply, type ServedNode, serveNode } from "../apps/controller/src/testing/agents.js";
import { loopbackSite } from "../apps/controller/src/testing/loopback-site.js";
import { signIn, startDashboard } from "../apps/web/test/harness.js";

try {
  if (!execFileSync("fc-list", [":lang=zh"], { encoding: "utf8" }).trim())
    console.warn("no CJK font: the zh-CN screenshots will show boxes (apt-get install fonts-wqy-microhei)");
} catch {
  // No fontconfig to ask.
}

const out = fileURLToPath(new URL("../docs/screenshots/", import.meta.url));
mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.endsWith(".png")) rmSync(join(out, f));

const routed = [
  ...readFileSync(new URL("../apps/web/src/main.tsx", import.meta.url), "utf8").matchAll(
    /pattern: "([^"]+)"/g,
  ),
].map((m) => m[1]!);

const agents = [
  { id: "de-fra-1", name: "Frankfurt", country: "DE", region: "eu-central", provider: "Hetzner", ms: 4 },
  { id: "us-nyc-1", name: "New York", country: "US", region: "us-east", provider: "DigitalOcean", ms: 38 },
  { id: "sg-sin-1", name: "Singapore", country: "SG", region: "ap-southeast", provider: "Vultr", ms: 92 },
  { id: "br-gru-1", name: "São Paulo", country: "BR", region: "sa-east", provider: "AWS", ms: 71 },
];

const site = loopbackSite();
await site.start();
const d = await startDashboard({ form: "b" });
const served: ServedNode[] = agents.map((a) =>
  serveNode(d.runtime.bus!, a, (job) => doneReply(job, a.ms + Math.random() * a.ms * 0.3)),
);
const beat = setInterval(() => {
  for (const s of served) s.heartbeat();
}, 3000);
try {
  const setup = await d.page();
  const email = "screenshots@example.com";
  const token = await signIn(setup, d.url, email);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${d.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: Record<string, unknown> }).data;
  };
  await api("POST", "/v1/account/api-keys", { name: "ci-deploy" });
  const monitor = await api("POST", "/v1/monitors", {
    name: "Shop front page",
    type: "http",
    url: site.url,
    interval: 60,
  });
  // An hour of runs on the monitor's schedule before its first, each on the next node; one failed (HTTP
  // 500), two never came.
  const { seq } = await d.runtime.db.kysely
    .selectFrom("monitors")
    .select("seq")
    .where("id", "=", monitor.id as string)
    .executeTakeFirstOrThrow();
  const start = Date.parse(monitor.next_run_at as string) - 60 * 60_000;
  await d.runtime.db.kysely
    .insertInto("monitor_runs")
    .values(
      [...Array(60).keys()]
        .filter((k) => k !== 23 && k !== 24)
        .map((k) => {
          const a = agents[k % agents.length]!;
          return {
            monitor_seq: seq,
            slot: new Date(start + k * 60_000),
            node_id: a.id,
            success: k !== 41,
            latency_ms: k === 41 ? null : a.ms * (1 + Math.random() * 0.4),
            error_code: k === 41 ? "unexpected_status" : null,
            status_code: k === 41 ? 500 : 200,
          };
        }),
    )
    .execute();
  const channel = await api("POST", "/v1/alert-channels", {
    name: "ops hook",
    type: "webhook",
    config: { url: `${site.url}hook`, secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` },
  });
  await api("POST", "/v1/alert-policies", {
    name: "on-call",
    monitor_id: monitor.id,
    channel_ids: [channel.id],
  });
  const task = await api("POST", "/v1/probe/ping", { host: "127.0.0.1", count: 3 });
  await new Promise((r) => setTimeout(r, 1500)); // the task's nodes answer

  const shots: [pattern: string, name: string, hash: string][] = [
    ["/", "nodes", "#/"],
    ["/probe", "probe", "#/probe"],
    ["/tasks/:id", "probe-task", `#/tasks/${task.task_id as string}`],
    ["/lookups", "lookups", "#/lookups?tab=ip&q=192.0.2.1"],
    ["/login", "login", "#/login"],
    ["/verify-email", "verify-email", "#/verify-email"],
    ["/reset-password", "reset-password", "#/reset-password"],
    ["/password", "password", "#/password"],
    ["/keys", "keys", "#/keys"],
    ["/monitors", "monitors", "#/monitors"],
    ["/monitors/:id", "monitor", `#/monitors/${monitor.id as string}`],
    ["/alerts", "alerts", "#/alerts"],
    ["/account", "account", "#/account"],
  ];
  const missing = routed.filter((p) => !shots.some((s) => s[0] === p));
  if (missing.length)
    throw new Error(`no screenshot for the routes ${missing.join(", ")}: add them to shots`);

  const sizes = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };
  for (const [lang, stored] of [
    ["en", "en"],
    ["zh-CN", "cn"],
  ] as const) {
    for (const [size, viewport] of Object.entries(sizes)) {
      const page = await d.page(viewport);
      // Before the app's own script on every load: the app writes its current locale back as it renders.
      await page.addInitScript(`localStorage.setItem("vantage.locale", "${stored}")`);
      await page.goto(`${d.url}/`);
      await page.evaluate(
        `localStorage.setItem("vantage.token", ${JSON.stringify(token)}); localStorage.setItem("vantage.email", "${email}")`,
      );
      for (const [pattern, name, hash] of shots) {
        if (!routed.includes(pattern)) continue;
        const signedOut =
          pattern === "/login" || pattern === "/verify-email" || pattern === "/reset-password";
        if (signedOut) await page.evaluate(`localStorage.removeItem("vantage.token")`);
        await page.goto(`${d.url}/${hash}`);
        await page.reload();
        await page.waitForLoadState("networkidle").catch(() => {});
        await page.waitForTimeout(800);
        const file = join(out, `${name}-${lang}-${size}.png`);
        await page.screenshot({ path: file, fullPage: true });
        if (signedOut) await page.evaluate(`localStorage.setItem("vantage.token", ${JSON.stringify(token)})`);
        try {
          execFileSync(
            "pngquant",
            ["--quality", "60-90", "--speed", "3", "--force", "--output", file, file],
            {
              stdio: "ignore",
            },
          );
        } catch {
          // No pngquant: the full-colour image stays.
        }
        console.log(`docs/screenshots/${name}-${lang}-${size}.png`);
      }
      await page.context().close();
    }
  }
} finally {
  clearInterval(beat);
  for (const s of served) await s.stop();
  await d.stop();
  await site.stop();
}
