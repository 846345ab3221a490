import { ApiError } from "../http/errors.js";
import type { QuotaCaller } from "../http/rate-limit/index.js";
import type { UsageFamily } from "../modules/plans/index.js";
import type { TestApp, TestResponse } from "./test-app.js";

interface Operation {
  "x-vantage-limit"?: UsageFamily;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

export interface LimitedRoute {
  method: string;
  path: string;
  url: string;
  family: UsageFamily;
  op: Operation;
}

/** Every operation the OpenAPI document marks as limited (`x-vantage-limit: <family>`). */
export function limitedRoutesOf(t: TestApp): LimitedRoute[] {
  const paths = (t.openapi() as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
  const out: LimitedRoute[] = [];
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const family = op["x-vantage-limit"];
      if (!family) continue;
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => `dummy_${name}_0000`);
      out.push({ method: method.toUpperCase(), path, url, family, op });
    }
  }
  return out;
}

/** Spends the caller's `family` one unit at a time until a limit refuses; the refusal's code. */
export async function exhaust(t: TestApp, family: UsageFamily, caller: QuotaCaller): Promise<string> {
  for (let i = 0; i < 10_000; i++) {
    try {
      await t.modules.plans.service.charge(family, caller, 1);
    } catch (error) {
      if (error instanceof ApiError) return error.code;
      throw error;
    }
  }
  throw new Error(`${family}: no limit refused 10,000 units (is it unlimited?)`);
}

const limitHeaders = ["retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"];

/** What is wrong with a 429 answer (empty when it is right). */
export function problemsOf429(res: TestResponse, code: string): string[] {
  const problems: string[] = [];
  if (res.status !== 429) problems.push(`status ${res.status}, want 429 (${res.text.slice(0, 160)})`);
  if (res.body?.error?.code !== code) problems.push(`code ${res.body?.error?.code}, want ${code}`);
  if (typeof res.body?.request_id !== "string") problems.push("no request_id in the envelope");
  for (const h of limitHeaders) {
    const v = res.headers.get(h);
    if (v === null || !/^\d+$/.test(v)) problems.push(`header ${h} is ${v ?? "absent"}`);
  }
  if (Number(res.headers.get("retry-after")) < 1) problems.push("Retry-After under 1 s");
  if (res.headers.get("ratelimit-remaining") !== "0") problems.push("RateLimit-Remaining is not 0");
  return problems;
}

/** The OpenAPI entry's 429 response and its headers. */
export function problemsOfEntry(r: LimitedRoute): string[] {
  const entry = r.op.responses?.["429"];
  if (!entry) return ["no 429 response documented"];
  const documented = Object.keys(entry.headers ?? {}).map((h) => h.toLowerCase());
  return limitHeaders.filter((h) => !documented.includes(h)).map((h) => `429 does not document ${h}`);
}
