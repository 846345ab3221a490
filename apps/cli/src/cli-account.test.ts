import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../controller/src/runtime.js";
import { until } from "../../controller/src/testing/until.js";
import { useCliController } from "./testing/cli-controller.js";

/**
 * `vantage`'s account commands against an embedded controller of each API form, run in this process
 * (`runCli`, on captured streams): login with a key (stored, used, refused) and logout; maintenance
 * windows and the export of a monitor's runs; status pages and their incidents.
 */
describe.each(["a", "b"] as const)("vantage against a Form %s controller", (form) => {
  const controller = useCliController(form);
  const { cli } = controller;
  let runtime: Runtime;
  let home: string;
  let api: string;
  let openPort: number;
  beforeAll(() => {
    ({ runtime, home, api, openPort } = controller);
  });

  const request = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await runtime.app.request(path, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as { data: Record<string, unknown> };
  };

  it("login --key: checked, stored with mode 600, used by later commands; a bad key is refused", async () => {
    const token = (
      await request("POST", "/v1/auth/register", undefined, {
        email: `cli-${form}@example.com`,
        password: "correct horse battery",
      })
    ).data.access_token as string;
    const key = (await request("POST", "/v1/account/api-keys", token, { name: "cli" })).data.key as string;
    const probesUsed = async () => {
      const usage = (await request("GET", "/v1/account/usage", token)).data.usage as {
        family: string;
        units: number;
      }[];
      return usage.find((u) => u.family === "probes")!.units;
    };
    expect(await probesUsed()).toBe(0);

    const login = await cli(["login", "--api", api, "--key", key]);
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(
      `logged in to ${api} (Form ${form.toUpperCase()}) as cli-${form}@example.com`,
    );
    const path = join(home, "config", "vantage", "config.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ api, key, form });

    // No --api: the stored deployment and key; the probe counts against the account.
    const probe = await cli(["tcp", "127.0.0.1", "--port", String(openPort)]);
    expect(probe.code).toBe(0);
    await until("the probe counted for the account", async () => (await probesUsed()) === 1, 5000);

    const bad = await cli([
      "login",
      "--api",
      api,
      "--key",
      form === "a" ? "sk_live_nope" : "vantage_live_nope",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/\(unauthorized\)$/m);
    expect(JSON.parse(readFileSync(path, "utf8")).key).toBe(key); // the good key is kept

    const fromStdin = await cli(["login", "--api", api], `${key}\n`);
    expect(fromStdin.code).toBe(0);
    const logout = await cli(["logout"]);
    expect(logout.stdout).toContain("logged out");
    expect(() => statSync(path)).toThrow();
  });

  /** A new account, the CLI logged in with its key, and one hourly ping monitor of it named `name`. */
  async function signedInWithMonitor(prefix: string, name: string) {
    const token = (
      await request("POST", "/v1/auth/register", undefined, {
        email: `${prefix}-${form}@example.com`,
        password: "correct horse battery",
      })
    ).data.access_token as string;
    const key = (await request("POST", "/v1/account/api-keys", token, { name: "cli" })).data.key as string;
    expect((await cli(["login", "--api", api, "--key", key])).code).toBe(0);
    const body =
      form === "a"
        ? { name, type: "ping", target: "192.0.2.1", interval_s: 3600 }
        : { name, type: "ping", host: "192.0.2.1", interval: 3600 };
    const monitor = (await request("POST", "/v1/monitors", token, body)).data.id as string;
    return { token, monitor };
  }

  it("maintenance create/list/delete and export: a window made and read back, runs streamed as CSV", async () => {
    const { monitor } = await signedInWithMonitor("cli-mnt", "m");
    const created = await cli([
      "maintenance",
      "create",
      "--title",
      "Sunday patching",
      "--monitors",
      monitor,
      "--rrule",
      "FREQ=WEEKLY;BYDAY=SU",
      "--start",
      "2026-03-01T02:30",
      "--tz",
      "Europe/Berlin",
      "--minutes",
      "90",
    ]);
    expect(created.stderr).toBe("");
    const id = /^created (mnt_\S+)/.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    const listed = await cli(["maintenance", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("FREQ=WEEKLY;BYDAY=SU (Europe/Berlin)");
    const bad = await cli([
      "maintenance",
      "create",
      "--title",
      "x",
      "--all",
      "--rrule",
      "FREQ=YEARLY",
      "--start",
      "2026-01-01T00:00",
      "--tz",
      "UTC",
      "--minutes",
      "5",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /body\.recurrence\.rrule: FREQ must be DAILY, WEEKLY or MONTHLY \(validation_error\)/,
    );
    expect((await cli(["maintenance", "create", "--title", "x"])).code).toBe(2);
    expect((await cli(["maintenance", "delete", "--id", id!])).stdout).toContain(`deleted ${id}`);

    const seq = (
      await runtime.db.kysely
        .selectFrom("monitors")
        .select("seq")
        .where("id", "=", monitor)
        .executeTakeFirstOrThrow()
    ).seq;
    await runtime.db.kysely
      .insertInto("monitor_runs")
      .values([
        {
          monitor_seq: String(seq),
          slot: new Date("2026-11-28T00:00:00Z"),
          node_id: "local",
          success: true,
          latency_ms: 1.5,
          error_code: null,
          status_code: null,
        },
        {
          monitor_seq: String(seq),
          slot: new Date("2026-11-28T01:00:00Z"),
          node_id: "local",
          success: false,
          latency_ms: null,
          error_code: "timeout",
          status_code: null,
        },
      ])
      .execute();
    const csv = await cli(["export", monitor, "--format", "csv", "--from", "2026-11-27T00:00:00Z"]);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe(
      "slot,node_id,success,latency_ms,error_code,status_code\r\n" +
        "2026-11-28T00:00:00.000Z,local,true,1.5,,\r\n" +
        "2026-11-28T01:00:00.000Z,local,false,,timeout,\r\n",
    );
    expect((await cli(["logout"])).code).toBe(0);
  });

  it("status-pages create/list/incident/update/delete: a page over a monitor, an incident and its resolution on its public page", async () => {
    const { token, monitor } = await signedInWithMonitor("cli-sp", "shop");
    const slug = `acme-${form}`;
    const created = await cli([
      "status-pages",
      "create",
      "--slug",
      slug,
      "--title",
      "Acme",
      "--monitors",
      monitor,
    ]);
    expect(created.stderr).toBe("");
    const id = /^created (spg_\S+): (\S+)$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect(created.stdout).toContain(`: ${api}/status/${slug}`);
    const page = await request("GET", `/v1/status-pages/${id}`, token);
    // The component is named as its monitor is.
    expect(page.data.components).toEqual([{ name: "shop", monitor_ids: [monitor] }]);
    const listed = await cli(["status-pages", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+SLUG\s+TITLE\s+COMPONENTS\s+URL$/m);
    expect(listed.stdout).toMatch(
      new RegExp(`^${id}\\s+${slug}\\s+Acme\\s+1\\s+${api}/status/${slug}$`, "m"),
    );

    // Refused by the API (exit 1, its message and code), or by the command line before any request (exit 2).
    const taken = await cli(["status-pages", "create", "--slug", slug, "--title", "Again"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/another page has this slug \(conflict\)$/m);
    const refused: [string[], RegExp][] = [
      [["status-pages", "create", "--title", "x"], /create needs --slug and --title/],
      [
        ["status-pages", "incident", "--id", id!, "--title", "x", "--message", "y", "--status", "fixed"],
        /--status is investigating, identified, monitoring, resolved, not fixed/,
      ],
      [
        ["status-pages", "update", "--id", id!, "--status", "resolved"],
        /update needs --incident, --status and --message/,
      ],
    ];
    for (const [args, message] of refused) {
      const run = await cli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/`vantage status-pages --help` for usage/);
    }

    const opened = await cli([
      "status-pages",
      "incident",
      "--id",
      id!,
      "--title",
      "Checkout errors",
      "--status",
      "identified",
      "--message",
      "Payments fail for some cards.",
    ]);
    expect(opened.stderr).toBe("");
    expect(opened.stdout).toMatch(new RegExp(`^opened inc_\\S+ on ${id} \\(identified\\)$`, "m"));
    const shown = (await request("GET", `/status/${slug}/status.json`)).data.incidents as {
      title: string;
      status: string;
      updates: { message: string }[];
    }[];
    expect(shown.find((i) => i.title === "Checkout errors")).toMatchObject({
      status: "identified",
      updates: [{ message: "Payments fail for some cards." }],
    });
    const incident = opened.stdout.match(/^opened (inc_\S+)/m)![1]!;
    const resolved = await cli([
      "status-pages",
      "update",
      "--id",
      id!,
      "--incident",
      incident,
      "--status",
      "resolved",
      "--message",
      "A card processor's fix is in.",
    ]);
    expect(resolved.stderr).toBe("");
    expect(resolved.stdout).toBe(`updated ${incident} (resolved)\n`);
    const after = (await request("GET", `/status/${slug}/status.json`)).data.incidents as {
      id: string;
      status: string;
      updates: { message: string }[];
    }[];
    expect(after.find((i) => i.id === incident)).toMatchObject({
      status: "resolved",
      updates: [{ message: "A card processor's fix is in." }, { message: "Payments fail for some cards." }],
    });

    expect((await cli(["status-pages", "delete", "--id", id!])).stdout).toContain(`deleted ${id}`);
    expect((await cli(["status-pages", "list"])).stdout).toBe("no status pages\n");
    expect((await cli(["logout"])).code).toBe(0);
  });
});
