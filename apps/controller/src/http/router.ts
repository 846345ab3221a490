import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import type { AppEnv } from "./context.js";
import { ApiError } from "./errors.js";

interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/** Turns zod issues into `{path, message}` details, paths prefixed with where the value came from. */
const targetNames: Record<string, string> = {
  json: "body",
  form: "body",
  param: "path",
  query: "query",
  header: "header",
};

export function issuesToDetails(error: ZodError, rawTarget: string) {
  const target = targetNames[rawTarget] ?? rawTarget;
  const details: { path: string; message: string }[] = [];
  for (const issue of error.issues as unknown as IssueLike[]) {
    const base = [target, ...issue.path.map(String)].join(".");
    if (issue.code === "unrecognized_keys" && issue.keys) {
      for (const key of issue.keys) details.push({ path: `${base}.${key}`, message: "unknown field" });
    } else {
      details.push({ path: base, message: issue.message });
    }
  }
  return details;
}

export function validationError(error: ZodError, target: string): ApiError {
  const details = issuesToDetails(error, target);
  // The code follows the first issue, which the message names too; `details` lists every issue.
  const unknown = (error.issues as unknown as IssueLike[])[0]?.code === "unrecognized_keys";
  const first = details[0];
  const summary = first ? `${first.path}: ${first.message}` : "invalid request";
  return new ApiError(unknown ? "unknown_field" : "validation_error", summary, details);
}

/** An OpenAPIHono whose validation failures become the API's error envelope. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw validationError(
          result.error as unknown as ZodError,
          (result as { target?: string }).target ?? "body",
        );
      }
    },
  });
}

export type Router = ReturnType<typeof createRouter>;
