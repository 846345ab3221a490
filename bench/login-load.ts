import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { leanClient } from "./lib/client.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:login-load`: what logins cost everyone else. One controller process (Form B, embedded
 * PGlite and local agent, access log on, as a newcomer runs it) and a TCP listener in a process of its own
 * (bench/servers/tcp-target.ts; VANTAGE_ALLOW_PRIVATE_TARGETS=true lets the probe reach it).
 * Two samplers, each sequential over its own kept-alive connection with a 5 ms pause between requests:
 * `GET /healthz` and a Form B `POST /v1/probe/tcp` to the listener. They run for BENCH_SECONDS (default 5)
 * per phase: unloaded, then while 2 and 8 clients log in back to back (each its own connection and
 * account). Every loop ends at its phase's deadline. Target: loaded p99 within 2× of unloaded.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const loginClients = [2, 8];
const root = new URL("..", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-login-"));
const PASSWORD = "bench login password";
const MAX_SAMPLES = 100_000;

const target = await startServer(join(root, "bench/servers/tcp-target.ts"));
const controller = await startServer(join(root, "apps/controller/src/main.ts"), {
  VANTAGE_API_FORM: "b",
  VANTAGE_DATA_DIR: dataDir,
  VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
  // Quotas off: the samplers and the accounts of the login clients would otherwise run into them.
  VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
  VANTAGE_REGISTER_LIMIT_IP: "0",
  VANTAGE_REGISTER_LIMIT_EMAIL: "0",
  VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "warn",
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

interface Phase {
  name: string;
  logins: number;
  loginErrors: number;
  healthz: number[];
  probe: number[];
  errors: number;
}

try {
  const probeBody = JSON.stringify({ host: "127.0.0.1", port: target.port, timeout: 5 });
  const emails = Array.from({ length: Math.max(...loginClients) }, (_, i) => `bench-login-${i}@example.com`);
  const setup = leanClient(controller.url);
  for (const email of emails) {
    const res = await setup.send("POST", "/v1/auth/register", JSON.stringify({ email, password: PASSWORD }));
    if (res.status !== 201) throw new Error(`register: ${res.status} ${res.text}`);
  }
  // Warm-up: JIT, prepared statements, the password pool's thread.
  for (let i = 0; i < 100; i++) await setup.send("GET", "/healthz");
  for (let i = 0; i < 50; i++) {
    const res = await setup.send("POST", "/v1/probe/tcp", probeBody);
    if (res.status !== 200) throw new Error(`probe: ${res.status} ${res.text}`);
  }
  for (const email of emails.slice(0, 2)) {
    await setup.send("POST", "/v1/auth/login", JSON.stringify({ email, password: PASSWORD }));
  }
  setup.close();

  async function sample(path: "/healthz" | "/v1/probe/tcp", until: number, into: number[]): Promise<number> {
    const client = leanClient(controller.url);
    let errors = 0;
    while (Date.now() < until && into.length < MAX_SAMPLES) {
      const start = performance.now();
      const res =
        path === "/healthz" ? await client.send("GET", path) : await client.send("POST", path, probeBody);
      into.push(performance.now() - start);
      if (res.status !== 200) errors++;
      await sleep(5);
    }
    client.close();
    return errors;
  }

  async function logIn(email: string, until: number, phase: Phase): Promise<void> {
    const client = leanClient(controller.url);
    const body = JSON.stringify({ email, password: PASSWORD });
    while (Date.now() < until && phase.logins < MAX_SAMPLES) {
      const res = await client.send("POST", "/v1/auth/login", body);
      if (res.status === 200) phase.logins++;
      else phase.loginErrors++;
    }
    client.close();
  }

  // The samplers once unrecorded, so the unloaded phase (the reference) is as warm as the others.
  const warm = Date.now() + 2000;
  await Promise.all([sample("/healthz", warm, []), sample("/v1/probe/tcp", warm, [])]);

  const phases: Phase[] = [];
  for (const clients of [0, ...loginClients]) {
    const phase: Phase = {
      name: clients === 0 ? "unloaded" : `${clients} clients logging in`,
      logins: 0,
      loginErrors: 0,
      healthz: [],
      probe: [],
      errors: 0,
    };
    const until = Date.now() + seconds * 1000;
    const errors = await Promise.all([
      sample("/healthz", until, phase.healthz),
      sample("/v1/probe/tcp", until, phase.probe),
      ...emails.slice(0, clients).map((email) => logIn(email, until, phase).then(() => 0)),
    ]);
    phase.errors = errors.reduce((a, b) => a + b, 0);
    phase.healthz.sort((a, b) => a - b);
    phase.probe.sort((a, b) => a - b);
    phases.push(phase);
    await sleep(500);
  }

  const base = phases[0]!;
  const ratio = (x: number, y: number) => `${(x / y).toFixed(2)}×`;
  process.stdout.write(
    `\nSequential samplers (5 ms apart), ${seconds} s per phase; controller Form B, embedded PGlite:\n\n`,
  );
  printTable(
    [
      "phase",
      "logins/s",
      "healthz p50 ms",
      "healthz p99 ms",
      "probe p50 ms",
      "probe p99 ms",
      "healthz p99 vs unloaded",
      "probe p99 vs unloaded",
      "errors",
    ],
    phases.map((p) => [
      p.name,
      (p.logins / seconds).toFixed(1),
      pct(p.healthz, 50).toFixed(2),
      pct(p.healthz, 99).toFixed(2),
      pct(p.probe, 50).toFixed(2),
      pct(p.probe, 99).toFixed(2),
      ratio(pct(p.healthz, 99), pct(base.healthz, 99)),
      ratio(pct(p.probe, 99), pct(base.probe, 99)),
      p.errors + p.loginErrors,
    ]),
  );
  const worst = Math.max(
    ...phases
      .slice(1)
      .flatMap((p) => [pct(p.healthz, 99) / pct(base.healthz, 99), pct(p.probe, 99) / pct(base.probe, 99)]),
  );
  process.stdout.write(
    `\nWorst loaded p99 ${worst.toFixed(2)}× unloaded (target ≤ 2×): ${worst <= 2 ? "ok" : "OVER TARGET"}\n`,
  );
} finally {
  await controller.stop();
  await target.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
