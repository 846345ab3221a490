import pkg from "../package.json" with { type: "json" };
import { login, logout } from "./account.js";
import { type Api, call, detectForm, type Form, normaliseApiUrl } from "./api-client.js";
import {
  COMMANDS,
  commandHelp,
  type Invocation,
  intFlag,
  listFlag,
  mainHelp,
  parseInvocation,
  stringFlag,
} from "./commands.js";
import { configPath, readConfig, writeConfig } from "./config-store.js";
import { ApiError, CliError, EXIT_FAILED, EXIT_OK, UsageError } from "./errors.js";
import type { CliIo } from "./io.js";
import { type LookupCommand, lookupRequest, renderLookup } from "./lookups.js";
import { ack, exportRuns, maintenance } from "./monitoring.js";
import {
  fromChoice,
  type Location,
  type NodeInfo,
  needsNodeList,
  PROBE_TYPES,
  type ProbeOptions,
  type ProbeType,
  probeBody,
  selectNodes,
} from "./probe-request.js";
import { runProbe } from "./probe-run.js";
import { ProbeView } from "./probe-view.js";
import { statusPages } from "./status-pages.js";
import { paint, table } from "./table.js";
import { tasks, tasksArgs } from "./tasks.js";
import { verifySource } from "./verify.js";

const DEFAULT_API = "http://127.0.0.1:8080";

/** One run's streams and environment, and what the commands print with. */
interface Ctx {
  io: CliIo;
  env: NodeJS.ProcessEnv;
  out(s: string): void;
  /** Colours: on a terminal, unless NO_COLOR is set. */
  paint: ReturnType<typeof paint>;
}

/** Prints and answers the exit code 0. */
const done = (ctx: Ctx, s: string) => {
  ctx.out(s);
  return EXIT_OK;
};
const printJson = (ctx: Ctx, v: unknown) => ctx.out(JSON.stringify(v, null, 2));

/**
 * The deployment: --api, $VANTAGE_API_URL, the stored login, the default. The stored key goes only to the
 * deployment it was stored for ($VANTAGE_API_KEY to any). The form: --form, the stored one, else detected
 * from the OpenAPI title and kept in the config when that is the stored deployment.
 */
async function resolveApi(
  values: Invocation["values"],
  env: NodeJS.ProcessEnv,
  useStoredKey: boolean,
): Promise<Api> {
  const path = configPath(env);
  const stored = readConfig(path);
  const url = normaliseApiUrl(stringFlag(values, "api") ?? env.VANTAGE_API_URL ?? stored?.api ?? DEFAULT_API);
  const same = stored?.api === url ? stored : undefined;
  const key = useStoredKey ? (env.VANTAGE_API_KEY ?? same?.key) : undefined;
  const flag = stringFlag(values, "form")?.toLowerCase();
  if (flag !== undefined && flag !== "a" && flag !== "b")
    throw new UsageError(`--form takes a or b, not ${flag}`);
  let form: Form | undefined = flag ?? (useStoredKey ? same?.form : undefined);
  if (!form) {
    form = await detectForm(url);
    if (same && useStoredKey) writeConfig(path, { ...same, form });
  }
  return { url, form, key };
}

interface ProbeArgs {
  options: ProbeOptions;
  from: string[] | undefined;
  limit: number | undefined;
  json: boolean;
}

/** `--family`: any, ipv4 or ipv6 (4 and 6 too). */
function familyFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  const family = { "4": "ipv4", "6": "ipv6" }[v] ?? v;
  if (!["any", "ipv4", "ipv6"].includes(family))
    throw new UsageError("--family is any, ipv4 or ipv6", "http");
  return family;
}

/** mtr's `--mode`: icmp, udp or tcp. */
function mtrModeFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (!["icmp", "udp", "tcp"].includes(v)) throw new UsageError("--mode is icmp, udp or tcp", "mtr");
  return v;
}

/** `--protocol`: udp, tcp, tls or https. */
function protocolFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (!["udp", "tcp", "tls", "https"].includes(v))
    throw new UsageError("--protocol is udp, tcp, tls or https", "dns");
  return v;
}

/** A probe's flags, checked before any request (a bad flag is exit 2 even with the API away). */
function probeArgs(type: ProbeType, inv: Invocation): ProbeArgs {
  const v = inv.values;
  const from = listFlag(v, "from");
  if (from && !from.length) throw new UsageError("--from names no node or location", inv.command);
  const options: ProbeOptions = {
    target: inv.arg!,
    count: intFlag(v, "count", 1, 50),
    port: intFlag(v, "port", 1, 65535),
    timeout: intFlag(v, "timeout", 1, 30),
    maxHops: intFlag(v, "max-hops", 1, 64),
    mode: mtrModeFlag(stringFlag(v, "mode")),
    rounds: intFlag(v, "rounds", 1, 100),
    method: stringFlag(v, "method")?.toUpperCase(),
    recordType: stringFlag(v, "type")?.toUpperCase(),
    server: stringFlag(v, "server"),
    family: familyFlag(stringFlag(v, "family")),
    size: intFlag(v, "size", 28, 1500),
    df: v.df === true ? true : undefined,
    pmtu: v.pmtu === true ? true : undefined,
    protocol: protocolFlag(stringFlag(v, "protocol")),
    dnssec: v.dnssec === true ? true : undefined,
    cd: v.cd === true ? true : undefined,
    nsid: v.nsid === true ? true : undefined,
    trace: v.trace === true ? true : undefined,
    http2: v.http2 === true ? true : undefined,
  };
  probeBody("b", type, options); // the form-neutral checks (a tcp port)
  return { options, from, limit: intFlag(v, "limit", 1, 50), json: v.json === true };
}

async function probe(ctx: Ctx, api: Api, type: ProbeType, args: ProbeArgs): Promise<number> {
  const { from, limit, json } = args;
  let nodes: string[] | undefined;
  let locations: Location[] | undefined;
  if (from) {
    // Node ids, or location selectors the API resolves (the list tells them apart).
    const list = await call<{ items: NodeInfo[] }>(api, "/v1/nodes");
    ({ nodes, locations } = fromChoice(list.items, from, limit));
  } else if (needsNodeList(from, limit)) {
    const list = await call<{ items: NodeInfo[] }>(api, "/v1/nodes");
    nodes = selectNodes(type, list.items, from, limit);
  }
  const body = probeBody(api.form, type, { ...args.options, nodes, locations });

  const { stdout } = ctx.io;
  const tty = !json && stdout.isTTY === true;
  const view = new ProbeView({
    type,
    tty,
    columns: stdout.columns,
    paint: paint(tty && !ctx.env.NO_COLOR),
    write: (s) => stdout.write(s),
  });
  const listener = json ? { start() {}, result() {} } : view;
  const task = await runProbe(api, type, body, listener);
  if (json) printJson(ctx, task);
  else view.finish(task);
  return task.results.length > 0 && task.results.every((r) => r.success) ? EXIT_OK : EXIT_FAILED;
}

async function nodes(ctx: Ctx, api: Api, inv: Invocation): Promise<number> {
  const data = await call<{ items: NodeInfo[] }>(api, "/v1/nodes");
  if (inv.values.json) return done(ctx, JSON.stringify(data, null, 2));
  const p = ctx.paint;
  const rows = data.items.map((n) => [
    n.id,
    n.name,
    n.country ?? "-",
    n.region ?? "-",
    n.provider ?? "-",
    n.status === "online" ? p.green(n.status) : p.red(n.status),
    n.version ?? "-",
  ]);
  ctx.out(table(["ID", "NAME", "COUNTRY", "REGION", "PROVIDER", "STATUS", "VERSION"], rows));
  ctx.out(
    `\n${data.items.length} node${data.items.length === 1 ? "" : "s"}, ${data.items.filter((n) => n.status === "online").length} online`,
  );
  return EXIT_OK;
}

async function lookup(ctx: Ctx, api: Api, command: LookupCommand, inv: Invocation): Promise<number> {
  const req = lookupRequest(api.form, command, inv.arg!, {
    port: intFlag(inv.values, "port", 1, 65535),
    type: stringFlag(inv.values, "type")?.toUpperCase(),
  });
  const data = await call<Record<string, unknown>>(api, req.path, { query: req.query });
  if (inv.values.json) printJson(ctx, data);
  else ctx.out(renderLookup(data, ctx.paint));
  return EXIT_OK;
}

/**
 * `vantage <argv>`: runs the command with `env` (the config's location, VANTAGE_API_URL, VANTAGE_API_KEY,
 * NO_COLOR) on `io`, and answers its exit code: 0 done, 1 failed (an API error, a failed probe), 2 a usage
 * error. Errors are written to `io.stderr`; nothing is thrown.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const out = (s: string) => {
    io.stdout.write(s.endsWith("\n") ? s : `${s}\n`);
  };
  const ctx: Ctx = { io, env, out, paint: paint(io.stdout.isTTY === true && !env.NO_COLOR) };
  try {
    return await run(ctx, argv);
  } catch (err) {
    if (err instanceof ApiError) io.stderr.write(`error: ${err.message} (${err.code})\n`);
    else if (err instanceof CliError) {
      io.stderr.write(`error: ${err.message}\n`);
      if (err instanceof UsageError) {
        const cmd = err.command ?? commandOf(argv);
        io.stderr.write(`run \`vantage ${cmd ? `${cmd} ` : ""}--help\` for usage\n`);
      }
    } else io.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
    return err instanceof CliError ? err.exitCode : EXIT_FAILED;
  }
}

async function run(ctx: Ctx, argv: string[]): Promise<number> {
  const { env, out } = ctx;
  const inv = parseInvocation(argv);
  if (inv === "help") return done(ctx, mainHelp());
  if (inv === "version") return done(ctx, `vantage ${pkg.version}`);
  if (inv.values.help) return done(ctx, commandHelp(inv.command));
  if (inv.command === "logout") return done(ctx, logout(env));
  if (inv.command === "login") {
    const api = await resolveApi(inv.values, env, false);
    return done(ctx, await login(api, stringFlag(inv.values, "key"), env, ctx.io));
  }
  if ((PROBE_TYPES as readonly string[]).includes(inv.command)) {
    const type = inv.command as ProbeType;
    const args = probeArgs(type, inv);
    return probe(ctx, await resolveApi(inv.values, env, true), type, args);
  }
  if (inv.command === "verify") {
    const report = await verifySource(inv.arg!, stringFlag(inv.values, "api"));
    out(report.lines.join("\n"));
    return report.ok ? EXIT_OK : EXIT_FAILED;
  }
  if (inv.command === "tasks") {
    const args = tasksArgs(inv);
    return tasks(await resolveApi(inv.values, env, true), args, out, ctx.paint).then(() => EXIT_OK);
  }
  const port = intFlag(inv.values, "port", 1, 65535);
  if (inv.command === "ssl") lookupRequest("a", "ssl", inv.arg!, { port }); // a clash of ports is exit 2 at once
  const api = await resolveApi(inv.values, env, true);
  if (inv.command === "nodes") return nodes(ctx, api, inv);
  if (inv.command === "maintenance") return maintenance(api, inv, out).then(() => EXIT_OK);
  if (inv.command === "status-pages") return statusPages(api, inv, out).then(() => EXIT_OK);
  if (inv.command === "ack") return ack(api, inv, out).then(() => EXIT_OK);
  if (inv.command === "export") return exportRuns(api, inv, ctx.io.stdout).then(() => EXIT_OK);
  return lookup(ctx, api, inv.command as LookupCommand, inv);
}

function commandOf(argv: string[]): string | undefined {
  return argv.find((a) => COMMANDS[a]);
}
