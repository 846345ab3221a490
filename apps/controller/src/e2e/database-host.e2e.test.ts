import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { logLines, type PostgresCluster, startPostgresCluster } from "@vantage/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostileNs, type HostileRun, startHostileRun } from "../testing/hostile-ns.js";
import { buildIfStale, type Reply, type Service, startBuiltController } from "../testing/hostile-services.js";
import { until } from "../testing/until.js";

/**
 * The database reached by a host name, as most deployments name it (`postgres://…@db.internal/…`), when the
 * name stops resolving or its address loses its route. The built controller runs in a namespace holding
 * only `lo`, its resolver at an address without a route (198.51.100.53); the name is in the namespace's own
 * /etc/hosts, which the test rewrites. PostgreSQL runs outside, reached through the aide's relay from
 * 127.0.0.1:5432 to the cluster's unix socket. Requests that need the database must answer 503
 * `unavailable` at once, as for a stopped server, and the controller must recover by itself; before, the
 * resolver's EAI_AGAIN reached every caller as a 500 with a stack in the log.
 */
describe("the database's host name stops resolving, then its address loses its route", () => {
  let run: HostileRun;
  let ns: HostileNs;
  let pg: PostgresCluster;
  let controller: Service;
  let admin: postgres.Sql;
  /** Everything the controller wrote (its warn log: the gate's changes name the error that closed it). */
  let output = "";
  let log: ReturnType<typeof logLines>;
  const hostsFile = () => join("/etc/netns", ns.name, "hosts");
  /** The namespace's /etc/hosts (bind-mounted by `ip netns exec`: written in place, the same file). */
  const hosts = (dbAddress?: string) =>
    writeFileSync(hostsFile(), `127.0.0.1 localhost\n${dbAddress ? `${dbAddress} db.vantage.test\n` : ""}`);
  /** Ends the controller's connections: its next query connects again, through the name. */
  const cutConnections = () =>
    admin`select pg_terminate_backend(pid) from pg_stat_activity
      where backend_type = 'client backend' and pid <> pg_backend_pid()`;
  let n = 0;
  const register = (): Promise<Reply> =>
    controller.call("POST", "/v1/auth/register", {
      body: { email: `host-${n++}@example.com`, password: "correct horse battery" },
      timeoutMs: 15_000,
    });

  beforeAll(async () => {
    run = startHostileRun();
    buildIfStale("web", "controller");
    ns = run.namespace({ tag: "dbhost", resolvConf: "nameserver 198.51.100.53\n" });
    pg = await startPostgresCluster();
    admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    hosts("127.0.0.1");
    await ns.aide({
      relays: [
        { unix: join(ns.dir, "p8090.sock"), toPort: 8090 },
        { port: 5432, toUnix: join(pg.dir, `.s.PGSQL.${pg.port}`) },
      ],
    });
    const data = join(ns.dir, "empty-data");
    mkdirSync(data, { recursive: true });
    controller = await startBuiltController(ns, {
      label: "controller",
      port: 8090,
      form: "b",
      dataDir: data,
      env: {
        DATABASE_URL: "postgres://postgres@db.vantage.test:5432/postgres",
        VANTAGE_REGISTER_LIMIT_IP: "0",
        VANTAGE_REGISTER_LIMIT_EMAIL: "0",
      },
    });
    const keep = (d: Buffer) => {
      output += d.toString();
    };
    controller.process.child.stdout?.on("data", keep);
    log = logLines(controller.process.child);
    controller.process.child.stderr?.on("data", keep);
  }, 240_000);
  afterAll(async () => {
    await admin?.end({ timeout: 5 });
    run?.destroy();
    await pg?.destroy();
  });

  /** Every request that needs the database is refused promptly with 503 and Retry-After; none is a 500. */
  async function refusedWhileAway(why: string) {
    const answers: Reply[] = [];
    for (let i = 0; i < 6; i++) answers.push(await register());
    for (const a of answers) {
      expect(a.status, `${why}: ${a.text}`).toBe(503);
      expect(a.body.error.code).toBe("unavailable");
      expect(Number(a.headers["retry-after"])).toBeGreaterThan(0);
      expect(a.ms, why).toBeLessThan(5000);
    }
    expect((await controller.call("GET", "/readyz")).status).toBe(503);
    // The process serves what needs no database.
    expect((await controller.call("GET", "/healthz")).status).toBe(200);
  }

  async function backAgain() {
    hosts("127.0.0.1");
    await until("registration works again", async () => (await register()).status === 201, 30_000);
    expect((await controller.call("GET", "/readyz")).status).toBe(200);
  }

  it("answers 503 while the name does not resolve (EAI_AGAIN) or its address has no route (ENETUNREACH), and recovers", async () => {
    expect((await register()).status).toBe(201);

    hosts(); // the resolver has no route: getaddrinfo fails with EAI_AGAIN
    await cutConnections();
    await refusedWhileAway("name not resolving");
    await backAgain();

    hosts("192.0.2.10"); // TEST-NET-1, no route in the namespace: connect fails with ENETUNREACH
    await cutConnections();
    await refusedWhileAway("no route to the address");
    await backAgain();

    expect(controller.process.alive(), controller.process.describe()).toBe(true);
    // Each outage is logged as the database away (its end is at info, below this controller's level),
    // never as an unhandled error per request. The line names what the driver reported first: the name or
    // route error of a new connection, or (seen once on Node 24) the closing of a connection the test cut.
    // That the name and route errors themselves count as the database away: fromDriver's availability test.
    const away = log.lines.filter((l) => String(l.msg).startsWith("database unavailable"));
    expect(away.length, output).toBeGreaterThanOrEqual(2);
    for (const l of away)
      expect((l.err as { message?: string } | undefined)?.message).toMatch(
        /EAI_AGAIN|ENETUNREACH|CONNECTION_CLOSED|ECONNRESET|terminat/,
      );
    expect(output).not.toMatch(/unhandled error/);
  }, 120_000);
});
