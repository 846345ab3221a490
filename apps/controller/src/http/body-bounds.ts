import { z } from "@hono/zod-openapi";

/**
 * Counts and sizes before contents. zod validates every element of an array or record before it looks at
 * the container's own `max` (and a record's entry limit is a refinement run after all of them), so a body
 * with 9,000 headers where 20 are allowed cost 9,000 validations and as many issues before its 400. The
 * plan below is read once per route from its body schema: the `max` of every string and array, and the
 * entry limit of every record (`limitEntries`), at the paths the schema gives them. Before the route's
 * validator runs, the parsed body is checked against it, visiting only those paths and never the elements
 * of a container that is over its count: a body over a bound gets the same 400 `validation_error`, at the
 * same field path and in the same words, for the price of a few property reads.
 */

type Check = z.core.$ZodCheck;

export type Plan =
  | { kind: "object"; fields: [string, Plan][] }
  | { kind: "array"; over?: { max: number; surrogate: z.ZodType }; element?: Plan }
  | { kind: "record"; over?: { max: number; message: string }; value?: Plan }
  | { kind: "string"; max: number; surrogate: z.ZodType };

/** The entry limits of records, with their messages, for the schemas `limitEntries` returned. */
const entryLimits = new WeakMap<object, { max: number; message: string }>();

/**
 * A record schema with at most `max` entries: documented (`maxProperties` in the OpenAPI document) and
 * checked before its entries are (`message` at the record's path). The schema must also refuse more
 * entries itself (services and other callers validate without this check).
 */
export function limitEntries<S extends z.ZodType>(schema: S, max: number, message: string): S {
  const out = schema.meta({ ...(z.globalRegistry.get(schema) ?? {}), maxProperties: max }) as S;
  entryLimits.set(out, { max, message });
  return out;
}

interface Def {
  type: string;
  checks?: Check[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
}

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const wrappers = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"]);

/** The `max_length` check of a string or array schema, if it has one. */
function maxCheck(def: Def): { check: Check; max: number } | undefined {
  for (const check of def.checks ?? []) {
    const d = (check as unknown as { _zod: { def: { check: string; maximum?: number } } })._zod.def;
    if (d.check === "max_length" && typeof d.maximum === "number") return { check, max: d.maximum };
  }
  return undefined;
}

/** What to check of values of `schema` before validating them; undefined when nothing. */
export function boundsPlan(schema: z.ZodType, depth = 0): Plan | undefined {
  // Recursive schemas go through `lazy`, which is not followed; the depth is a second guard.
  if (depth > 32) return undefined;
  let s = schema;
  let entries = entryLimits.get(s);
  for (let def = defOf(s); ; def = defOf(s)) {
    if (wrappers.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === "pipe" && def.in) s = def.in;
    else break;
    entries ??= entryLimits.get(s);
  }
  const def = defOf(s);
  switch (def.type) {
    case "string": {
      const m = maxCheck(def);
      return (
        m && { kind: "string", max: m.max, surrogate: z.string().check(m.check as z.core.$ZodCheck<string>) }
      );
    }
    case "array": {
      const m = maxCheck(def);
      const element = def.element && boundsPlan(def.element, depth + 1);
      if (!m && !element) return undefined;
      return {
        kind: "array",
        ...(m
          ? {
              over: {
                max: m.max,
                surrogate: z.array(z.unknown()).check(m.check as z.core.$ZodCheck<unknown[]>),
              },
            }
          : {}),
        ...(element ? { element } : {}),
      };
    }
    case "record": {
      const value = def.valueType && boundsPlan(def.valueType, depth + 1);
      if (!entries && !value) return undefined;
      return { kind: "record", ...(entries ? { over: entries } : {}), ...(value ? { value } : {}) };
    }
    case "object": {
      const fields: [string, Plan][] = [];
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        const plan = boundsPlan(field, depth + 1);
        if (plan) fields.push([key, plan]);
      }
      return fields.length > 0 ? { kind: "object", fields } : undefined;
    }
    default:
      // Unions, intersections, lazy schemas and scalars: left to the validator.
      return undefined;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The issues of `value` against `plan`: one per bound exceeded, none for anything else. */
export function boundsIssues(value: unknown, plan: Plan): z.core.$ZodIssue[] {
  const issues: z.core.$ZodIssue[] = [];
  const fromSurrogate = (surrogate: z.ZodType, v: unknown, path: PropertyKey[]) => {
    const result = surrogate.safeParse(v);
    for (const issue of result.error?.issues ?? []) issues.push({ ...issue, path: [...path, ...issue.path] });
  };
  const walk = (v: unknown, p: Plan, path: PropertyKey[]) => {
    switch (p.kind) {
      case "string":
        if (typeof v === "string" && v.length > p.max) fromSurrogate(p.surrogate, v, path);
        return;
      case "array":
        if (!Array.isArray(v)) return;
        if (p.over && v.length > p.over.max) {
          // The surrogate counts; the elements are not looked at.
          fromSurrogate(p.over.surrogate, v.slice(0, p.over.max + 1), path);
          return;
        }
        if (p.element) for (let i = 0; i < v.length; i++) walk(v[i], p.element, [...path, i]);
        return;
      case "record": {
        if (!isPlainObject(v)) return;
        const keys = Object.keys(v);
        if (p.over && keys.length > p.over.max) {
          issues.push({ code: "custom", path, message: p.over.message, input: undefined });
          return;
        }
        if (p.value) for (const k of keys) walk(v[k], p.value, [...path, k]);
        return;
      }
      case "object":
        if (!isPlainObject(v)) return;
        for (const [key, field] of p.fields) if (Object.hasOwn(v, key)) walk(v[key], field, [...path, key]);
        return;
    }
  };
  walk(value, plan, []);
  return issues;
}

/**
 * `value` with every container over its count cut to the count and every string over its size cut to the
 * size: what the validator may then look at in full to report the body's other problems beside the bounds,
 * at a cost the bounds themselves cap.
 */
export function trimToBounds(value: unknown, plan: Plan): unknown {
  switch (plan.kind) {
    case "string":
      return typeof value === "string" && value.length > plan.max ? value.slice(0, plan.max) : value;
    case "array": {
      if (!Array.isArray(value)) return value;
      const kept = plan.over && value.length > plan.over.max ? value.slice(0, plan.over.max) : value;
      const element = plan.element;
      return element ? kept.map((v) => trimToBounds(v, element)) : kept;
    }
    case "record": {
      if (!isPlainObject(value)) return value;
      let keys = Object.keys(value);
      if (plan.over && keys.length > plan.over.max) keys = keys.slice(0, plan.over.max);
      const inner = plan.value;
      return Object.fromEntries(keys.map((k) => [k, inner ? trimToBounds(value[k], inner) : value[k]]));
    }
    case "object": {
      if (!isPlainObject(value)) return value;
      const out: Record<string, unknown> = { ...value };
      for (const [key, field] of plan.fields)
        if (Object.hasOwn(value, key)) out[key] = trimToBounds(value[key], field);
      return out;
    }
  }
}
