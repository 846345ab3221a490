import { z } from "zod";
import { ApiError, fieldError, validationError } from "../../http/errors.js";
import type { LookupRouteSpec } from "../lookups/index.js";

/**
 * One argument name per concept across the tools, in both forms: what a tool looks up or probes is always
 * `target` (the HTTP API calls it `q`, `ip`, `domain`, `url` or `host` depending on route and form), a DNS
 * record type is always `record_type` (the DNS lookup's query calls it `type`), and a port is a number (a
 * string of digits is taken too). The HTTP names stay accepted as deprecated aliases, so clients written
 * against the earlier tools keep working; a call giving both names with different values is refused.
 */

/** The HTTP names of the target, by route and form. */
const TARGET_NAMES = ["q", "ip", "domain", "url", "host"] as const;

const deprecated = (now: string) => `Deprecated: the earlier name of \`${now}\`, still accepted.`;

type Args = Record<string, unknown>;

/** `args[now]`, else `args[old]`; 400 on `now` when both are given and differ. */
function either(args: Args, now: string, old: string, where = ""): unknown {
  const a = args[now];
  const b = args[old];
  if (a !== undefined && b !== undefined && a !== b)
    throw fieldError(`${where}${now}`, `give \`${now}\` or its deprecated name \`${old}\`, not both`);
  return a ?? b;
}

/** A lookup tool's arguments: the input schema the SDK checks, and the HTTP route's query they make. */
export interface LookupArguments {
  schema: z.ZodObject;
  toQuery(args: unknown): Record<string, string | undefined>;
  /** Lookup input field → argument name, for error paths. */
  fieldNames: Record<string, string>;
}

export function lookupArguments(spec: LookupRouteSpec): LookupArguments {
  const shape = spec.query.shape as Record<string, z.ZodType>;
  const alias = Object.keys(shape).find((k) => (TARGET_NAMES as readonly string[]).includes(k));
  const targetRequired = alias !== undefined && !shape[alias]!.safeParse(undefined).success;
  const out: Record<string, z.ZodType> = {};
  // Other query fields (none today besides these) pass through under their HTTP names.
  for (const [key, field] of Object.entries(shape)) {
    if (key === alias || key === "port" || key === "type") continue;
    out[key] = field;
  }
  if (alias !== undefined) {
    const what = shape[alias]!.description ?? "What to look up";
    out.target = z
      .string()
      .max(1024)
      .optional()
      .describe(`${what}${targetRequired ? " (required)" : ""}`);
    out[alias] = z.string().max(1024).optional().describe(deprecated("target"));
  }
  if ("port" in shape) {
    out.port = z
      .union([z.number().int(), z.string().max(16)])
      .optional()
      .describe("TCP port, 1–65535 (default 443): a number, or a string of digits");
  }
  if ("type" in shape) {
    out.record_type = z
      .string()
      .max(16)
      .optional()
      .describe("A, AAAA, MX, TXT, NS, CNAME or SOA; omitted = all types");
    out.type = z.string().max(16).optional().describe(deprecated("record_type"));
  }
  const rename: Record<string, string> = { type: "record_type", ...(alias ? { [alias]: "target" } : {}) };
  return {
    schema: z.strictObject(out),
    toQuery(raw) {
      const args = raw as Args;
      const query: Record<string, string | undefined> = {};
      for (const key of Object.keys(out)) {
        if (key in rename || key === "target" || key === "record_type" || key === "port") continue;
        query[key] = args[key] as string | undefined;
      }
      if (alias !== undefined) {
        const target = either(args, "target", alias, "query.") as string | undefined;
        if (target === undefined && targetRequired) throw fieldError("query.target", "required");
        query[alias] = target;
      }
      if ("port" in shape) query.port = args.port === undefined ? undefined : String(args.port);
      if ("type" in shape) query.type = either(args, "record_type", "type", "query.") as string | undefined;
      return query;
    },
    fieldNames: Object.fromEntries(
      Object.entries(spec.fieldNames).map(([field, param]) => [field, rename[param] ?? param]),
    ),
  };
}

/** A Form B probe tool's arguments: the body's fields with its target field named `target`. */
export interface ProbeArguments {
  schema: z.ZodObject;
  /** The arguments → the route's body, checked by the route's own schema (400 naming the argument). */
  toBody(args: unknown): unknown;
  /** An error about the body's target field (`body.host`) as one about the argument (`body.target`). */
  renamed(error: unknown): unknown;
}

/** `error` with every `from` path (and the message naming it) read as `to`. */
function renamePaths(error: unknown, from: string, to: string): unknown {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return error;
  const swap = (path: unknown) =>
    typeof path === "string" && (path === from || path.startsWith(`${from}.`))
      ? to + path.slice(from.length)
      : path;
  const details = (error.details as { path?: unknown }[]).map((d) => ({ ...d, path: swap(d.path) }));
  const message = error.message.startsWith(`${from}`) ? to + error.message.slice(from.length) : error.message;
  return new ApiError(error.code, message, details, error.headers);
}

export function probeArgumentsB(body: z.ZodObject): ProbeArguments {
  const shape = body.shape as Record<string, z.ZodType>;
  const alias = Object.keys(shape).find((k) => (TARGET_NAMES as readonly string[]).includes(k));
  if (alias === undefined) return { schema: body, toBody: (args) => args, renamed: (e) => e };
  const { [alias]: field, ...rest } = shape;
  const what = field?.description ?? "What to probe";
  const schema = z.strictObject({
    target: z.string().max(2048).optional().describe(`${what} (required)`),
    [alias]: z.string().max(2048).optional().describe(deprecated("target")),
    ...rest,
  });
  return {
    schema,
    toBody(raw) {
      const { target: _, [alias]: __, ...others } = raw as Args;
      const target = either(raw as Args, "target", alias, "body.");
      if (target === undefined) throw fieldError("body.target", "required");
      const parsed = body.safeParse({ ...others, [alias]: target });
      if (parsed.success) return parsed.data;
      throw renamePaths(validationError(parsed.error, "json"), `body.${alias}`, "body.target");
    },
    renamed: (error) => renamePaths(error, `body.${alias}`, "body.target"),
  };
}
