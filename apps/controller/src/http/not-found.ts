import type { Context } from "hono";
import type { AppEnv } from "./context.js";
import { errorBody } from "./errors.js";

interface RouteEntry {
  method: string;
  path: string;
}

/**
 * Unknown path → 404; a known path with another method → 405 with `Allow`. The route table is read lazily
 * once, after every module has registered.
 */
export function notFoundHandler(routes: () => readonly RouteEntry[]) {
  let compiled: { re: RegExp; method: string }[] | undefined;
  return (c: Context<AppEnv>) => {
    compiled ??= routes()
      .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => ({ method: r.method, re: new RegExp(`^${r.path.replace(/:[^/]+/g, "[^/]+")}/?$`) }));
    const requestId = c.get("requestId") ?? "unknown";
    const allowed = [...new Set(compiled.filter((r) => r.re.test(c.req.path)).map((r) => r.method))];
    if (allowed.length > 0) {
      if (allowed.includes("GET")) allowed.push("HEAD");
      c.header("Allow", allowed.join(", "));
      return c.json(
        errorBody(
          "method_not_allowed",
          `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(", ")}`,
          requestId,
        ),
        405,
      );
    }
    return c.json(errorBody("not_found", `no route for ${c.req.method} ${c.req.path}`, requestId), 404);
  };
}
