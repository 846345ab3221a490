import { parseArgs } from "node:util";
import { UsageError } from "./errors.js";
import { LOOKUP_COMMANDS } from "./lookups.js";
import { PROBE_TYPES } from "./probe-request.js";

type OptionSpec = { type: "string" | "boolean"; short?: string; arg?: string; help: string };

interface CommandSpec {
  summary: string;
  /** The positional argument's name, if the command takes one (always exactly one). */
  arg?: string;
  options: Record<string, OptionSpec>;
}

const GLOBAL: Record<string, OptionSpec> = {
  api: {
    type: "string",
    arg: "url",
    help: "the deployment (else $VANTAGE_API_URL, the stored login, http://127.0.0.1:8080)",
  },
  form: { type: "string", arg: "a|b", help: "its API form (else read from its /v1/openapi.json)" },
  help: { type: "boolean", short: "h", help: "show this help" },
};
const JSON_OPT: OptionSpec = { type: "boolean", help: "print the API's JSON answer only" };
const PROBE_COMMON: Record<string, OptionSpec> = {
  from: {
    type: "string",
    arg: "list",
    help: "node ids, or locations (DE, germany+hetzner, europe:3), comma-separated",
  },
  limit: { type: "string", arg: "n", help: "at most n nodes (1-50)" },
  json: { type: "boolean", help: "print the finished task's JSON only" },
};
const TIMEOUT: OptionSpec = { type: "string", arg: "s", help: "timeout in seconds" };

export const COMMANDS: Record<string, CommandSpec> = {
  ping: {
    summary: "ICMP echo from the nodes (a pasted URL or host:port: its host)",
    arg: "host",
    options: {
      ...PROBE_COMMON,
      count: { type: "string", arg: "n", help: "echo requests per node" },
      timeout: TIMEOUT,
      size: { type: "string", arg: "bytes", help: "IP packet size, headers included (28-1500)" },
      df: { type: "boolean", help: "set Don't Fragment: too big for the path fails" },
      pmtu: { type: "boolean", help: "also find the path MTU (largest size that passes with DF)" },
    },
  },
  http: {
    summary: "an HTTP(S) request from the nodes (https:// is added to a bare host)",
    arg: "url",
    options: {
      ...PROBE_COMMON,
      method: { type: "string", arg: "m", help: "GET (default), HEAD, POST, …" },
      family: {
        type: "string",
        arg: "f",
        help: "any (default: IPv6 falls back to IPv4 as curl does), ipv4 or ipv6",
      },
      http2: { type: "boolean", help: "offer HTTP/2 (ALPN); the answer says which version was used" },
      timeout: TIMEOUT,
    },
  },
  dns: {
    summary: "a DNS query from the nodes' resolvers",
    arg: "domain",
    options: {
      ...PROBE_COMMON,
      type: { type: "string", arg: "t", help: "A (default), AAAA, MX, TXT, NS, CNAME, SOA" },
      server: {
        type: "string",
        arg: "host",
        help: "ask this server instead of the node's resolver (with --protocol https: the DoH URL)",
      },
      protocol: { type: "string", arg: "p", help: "udp (default), tcp, tls (DoT) or https (DoH)" },
      dnssec: { type: "boolean", help: "set the DO bit: ask for DNSSEC records" },
      cd: { type: "boolean", help: "set the CD flag: the resolver should not validate" },
      nsid: { type: "boolean", help: "ask the server for its NSID" },
      trace: { type: "boolean", help: "resolve iteratively from the root servers (dig +trace)" },
    },
  },
  tcp: {
    summary: "a TCP connect from the nodes",
    arg: "host[:port]",
    options: {
      ...PROBE_COMMON,
      port: { type: "string", arg: "n", help: "the port (or give host:port)" },
      timeout: TIMEOUT,
    },
  },
  traceroute: {
    summary: "the route from the nodes",
    arg: "host",
    options: { ...PROBE_COMMON, "max-hops": { type: "string", arg: "n", help: "1-64, default 30" } },
  },
  mtr: {
    summary: "mtr from the nodes: loss and round-trip times per hop, with each hop's network",
    arg: "host",
    options: {
      ...PROBE_COMMON,
      mode: { type: "string", arg: "m", help: "icmp (default), udp or tcp" },
      port: { type: "string", arg: "n", help: "udp/tcp: the port (tcp default 80, udp 33434)" },
      rounds: { type: "string", arg: "n", help: "rounds of probes, 1-100, default 10" },
      "max-hops": { type: "string", arg: "n", help: "1-64, default 30" },
    },
  },
  nodes: { summary: "the probe nodes and their state", options: { json: JSON_OPT } },
  tasks: {
    summary: "your probe tasks, newest first: type, target, status, nodes that succeeded, share link",
    options: {
      json: JSON_OPT,
      type: { type: "string", arg: "t", help: "only this probe type: http, ping, dns, tcp, traceroute, mtr" },
      page: { type: "string", arg: "n", help: "the page, from 1 (default 1)" },
      "per-page": { type: "string", arg: "n", help: "tasks a page, 1-100 (default 20)" },
    },
  },
  ip: { summary: "country, ASN and ISP of an address", arg: "address", options: { json: JSON_OPT } },
  whois: { summary: "RDAP/WHOIS of a domain or address", arg: "query", options: { json: JSON_OPT } },
  ssl: {
    summary: "an SSL/TLS audit with a grade",
    arg: "domain[:port]",
    options: {
      json: JSON_OPT,
      port: { type: "string", arg: "n", help: "default 443 (or give domain:port)" },
    },
  },
  "dns-records": {
    summary: "a domain's DNS records, looked up by the controller",
    arg: "domain",
    options: {
      json: JSON_OPT,
      type: { type: "string", arg: "t", help: "one record type (default all seven)" },
    },
  },
  icp: { summary: "a domain's ICP registration", arg: "domain", options: { json: JSON_OPT } },
  reputation: { summary: "a risk score for an address or domain", arg: "query", options: { json: JSON_OPT } },
  maintenance: {
    summary: "maintenance windows: list, create (one-off or --rrule) or delete",
    arg: "list|create|delete",
    options: {
      json: JSON_OPT,
      title: { type: "string", arg: "text", help: "create: the window's title" },
      monitors: { type: "string", arg: "ids", help: "create: monitor ids, comma-separated" },
      all: { type: "boolean", help: "create: every monitor of the account, later ones too" },
      start: {
        type: "string",
        arg: "time",
        help: "create: ISO 8601 start (one-off), or the local first start YYYY-MM-DDTHH:MM with --rrule",
      },
      end: { type: "string", arg: "time", help: "create: ISO 8601 end (one-off)" },
      rrule: { type: "string", arg: "rule", help: "create: recurring, e.g. FREQ=WEEKLY;BYDAY=SU" },
      tz: { type: "string", arg: "zone", help: "create: IANA time zone of --start with --rrule" },
      minutes: { type: "string", arg: "n", help: "create: each occurrence's length with --rrule" },
      id: { type: "string", arg: "id", help: "delete: the window's id" },
    },
  },
  "status-pages": {
    summary: "public status pages: list, create or delete; open an incident on one, post its updates",
    arg: "list|create|delete|incident|update",
    options: {
      json: JSON_OPT,
      slug: { type: "string", arg: "slug", help: "create: the page's address, /status/<slug>" },
      title: { type: "string", arg: "text", help: "create: the page's title; incident: the incident's" },
      monitors: {
        type: "string",
        arg: "ids",
        help: "create: monitor ids, comma-separated, one component each",
      },
      id: { type: "string", arg: "id", help: "delete, incident, update: the page's id" },
      incident: { type: "string", arg: "id", help: "update: the incident's id (inc_…)" },
      status: {
        type: "string",
        arg: "s",
        help:
          "incident: investigating (default), identified, monitoring or resolved; update: the incident's " +
          "status from now on (resolved resolves it)",
      },
      message: { type: "string", arg: "text", help: "incident: its first update; update: the update's text" },
    },
  },
  ack: {
    summary: "acknowledge a down alert: its escalation and reminders stop",
    arg: "event-id",
    options: { json: JSON_OPT },
  },
  export: {
    summary: "a monitor's runs as NDJSON or CSV on stdout, streamed",
    arg: "monitor-id",
    options: {
      format: { type: "string", arg: "f", help: "ndjson (default) or csv" },
      from: { type: "string", arg: "time", help: "ISO 8601: runs at or after (default: the oldest kept)" },
      to: { type: "string", arg: "time", help: "ISO 8601: runs before (default: now)" },
    },
  },
  login: {
    summary: "check an API key and store it (read from stdin without --key)",
    options: { key: { type: "string", arg: "key", help: "the API key" } },
  },
  logout: { summary: "forget the stored key", options: {} },
  verify: {
    summary: "check a shared or exported task's signatures offline (exit 1 if any fails)",
    arg: "file|url",
    options: {},
  },
};

// Every probe type and lookup has its command (the compiler does not see this: a test would, cheaply).
for (const name of [...PROBE_TYPES, ...LOOKUP_COMMANDS])
  if (!COMMANDS[name]) throw new Error(`no command ${name}`);

function optionLines(options: Record<string, OptionSpec>): string[] {
  const left = Object.entries(options).map(
    ([name, o]) => `${o.short ? `-${o.short}, ` : "    "}--${name}${o.arg ? ` <${o.arg}>` : ""}`,
  );
  const width = Math.max(...left.map((l) => l.length));
  return Object.values(options).map((o, i) => `  ${left[i]!.padEnd(width)}  ${o.help}`);
}

export function mainHelp(): string {
  const width = Math.max(
    ...Object.entries(COMMANDS).map(([n, c]) => n.length + (c.arg ? c.arg.length + 3 : 0)),
  );
  const lines = Object.entries(COMMANDS).map(
    ([name, c]) => `  ${`${name}${c.arg ? ` <${c.arg}>` : ""}`.padEnd(width)}  ${c.summary}`,
  );
  return [
    "Usage: vantage <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Options for every command:",
    ...optionLines(GLOBAL),
    "      --version    print the version",
    "",
    "Exit status: 0 all nodes succeeded (or the lookup answered), 1 a node failed or the API refused,",
    "2 a usage error. `vantage <command> --help` lists a command's options.",
  ].join("\n");
}

export function commandHelp(name: string): string {
  const c = COMMANDS[name]!;
  return [
    `Usage: vantage ${name}${c.arg ? ` <${c.arg}>` : ""} [options]`,
    "",
    c.summary,
    "",
    "Options:",
    ...optionLines({ ...c.options, ...GLOBAL }),
  ].join("\n");
}

export interface Invocation {
  command: string;
  arg: string | undefined;
  values: Record<string, string | boolean | undefined>;
}

/** The command is the first word that is no option (global options may come before it). */
function findCommand(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--api" || a === "--form") i++;
    else if (!a.startsWith("-")) return i;
  }
  return -1;
}

export function parseInvocation(argv: string[]): Invocation | "help" | "version" {
  const at = findCommand(argv);
  if (at < 0) {
    if (argv.includes("--version") || argv.includes("-V")) return "version";
    if (!argv.length || argv.includes("--help") || argv.includes("-h")) return "help";
    throw new UsageError(`no command given (${argv.join(" ")})`);
  }
  const command = argv[at]!;
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command: ${command}`);
  const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    const options = Object.fromEntries(
      Object.entries({ ...spec.options, ...GLOBAL }).map(([n, o]) => [
        n,
        { type: o.type, ...(o.short ? { short: o.short } : {}) },
      ]),
    );
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional.*$/s, ""), command);
  }
  const values = parsed.values as Invocation["values"];
  if (values.help) return { command, arg: undefined, values };
  if (parsed.positionals.length > (spec.arg ? 1 : 0))
    throw new UsageError(`unexpected argument: ${parsed.positionals[spec.arg ? 1 : 0]}`, command);
  if (spec.arg && !parsed.positionals[0]) throw new UsageError(`missing <${spec.arg}>`, command);
  return { command, arg: parsed.positionals[0], values };
}

/** An integer flag within its range, or a usage error naming it. */
export function intFlag(
  values: Invocation["values"],
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || n < min || n > max)
    throw new UsageError(`--${name} takes a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return n;
}

export function stringFlag(values: Invocation["values"], name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

/** A comma-separated flag's items, trimmed, empty ones left out; undefined when the flag is not given. */
export function listFlag(values: Invocation["values"], name: string): string[] | undefined {
  return stringFlag(values, name)
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
