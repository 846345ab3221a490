// Form B's monitor request bodies → the service's input: the target in the probe bodies' names (the
// answers are views.ts's).
import type { z } from "@hono/zod-openapi";
import type { MonitorType } from "../../db/tables/monitors.js";
import { ApiError, fieldError } from "../../http/errors.js";
import { hostPort } from "../probes/index.js";
import type { createBodyB, patchBodyB } from "./schemas.js";
import type { FieldPaths, MonitorPatch, NewMonitor } from "./service.js";

/** Form B's top-level fields per type (besides `url`, which any type may use for its target text). */
const targetFieldsB: Record<MonitorType, readonly string[]> = {
  http: ["url"],
  ping: ["host"],
  traceroute: ["host"],
  mtr: ["host"],
  tcp: ["host", "port"],
  dns: ["domain", "record_type", "server"],
};

/** Settings Form B takes at the top level, so not in `config`. */
const hoistedB: Partial<Record<MonitorType, readonly string[]>> = {
  tcp: ["port"],
  dns: ["record_type", "server"],
};

/** Form B's paths of the service's fields: `interval`, the DNS settings and the port at the top level. */
function pathsB(targetField: string): FieldPaths {
  return (field) => {
    if (field === "target") return `body.${targetField}`;
    const m = /^config\.(record_type|server|port)(\..*)?$/.exec(field);
    if (m) return `body.${m[1]}${m[2] ?? ""}`;
    return `body.${field}`;
  };
}

function refuseHoistedInConfig(type: MonitorType, config: Record<string, unknown> | undefined): void {
  const inConfig = (hoistedB[type] ?? []).filter((k) => config && k in config);
  if (inConfig.length === 0) return;
  const details = inConfig.map((k) => ({
    path: `body.config.${k}`,
    message: `unknown field (Form B takes ${k} at the top level)`,
  }));
  throw new ApiError("unknown_field", `${details[0]!.path}: ${details[0]!.message}`, details);
}

/** A Form B create body as the service's input. */
export function fromCreateB(b: z.infer<typeof createBodyB>): NewMonitor {
  const allowed = new Set(targetFieldsB[b.type]);
  const given = (["url", "host", "port", "domain", "record_type", "server"] as const).filter(
    (k) => b[k] !== undefined,
  );
  for (const k of given) {
    if (k !== "url" && !allowed.has(k)) throw fieldError(`body.${k}`, `not a field of ${b.type} monitors`);
  }
  refuseHoistedInConfig(b.type, b.config);
  const config: Record<string, unknown> = { ...b.config };
  if (b.record_type !== undefined) config.record_type = b.record_type;
  if (b.server !== undefined) config.server = b.server;
  const base = { name: b.name, type: b.type, config, intervalS: b.interval };
  const main = targetFieldsB[b.type][0]!;
  if (b.url !== undefined) {
    const clash = given.find((k) => k === "host" || k === "domain" || k === "port");
    if (clash) throw fieldError(`body.${clash}`, "url already names the target: give one of them");
    return { ...base, target: b.url, paths: pathsB("url") };
  }
  if (b.type === "http") throw fieldError("body.url", "required for http monitors");
  if (b.type === "dns") {
    if (b.domain === undefined) throw fieldError("body.domain", "required for dns monitors (or url)");
    return { ...base, target: b.domain, paths: pathsB("domain") };
  }
  if (b.host === undefined) throw fieldError(`body.${main}`, `required for ${b.type} monitors (or url)`);
  if (b.type === "tcp") {
    if (b.port === undefined) throw fieldError("body.port", "required for tcp monitors");
    return { ...base, target: hostPort(b.host, b.port), paths: pathsB("host") };
  }
  return { ...base, target: b.host, paths: pathsB("host") };
}

/** A Form B PATCH body as the service's patch; `type` is the monitor's (the DNS fields are dns only). */
export function fromPatchB(b: z.infer<typeof patchBodyB>, type: MonitorType): MonitorPatch {
  for (const k of ["record_type", "server"] as const) {
    if (b[k] !== undefined && type !== "dns")
      throw fieldError(`body.${k}`, `not a field of ${type} monitors`);
  }
  refuseHoistedInConfig(type, b.config);
  let config = b.config;
  if (b.record_type !== undefined || b.server !== undefined) {
    config = { ...config };
    if (b.record_type !== undefined) config.record_type = b.record_type;
    if (b.server !== undefined) config.server = b.server;
  }
  return { name: b.name, intervalS: b.interval, config, paths: pathsB("url") };
}
