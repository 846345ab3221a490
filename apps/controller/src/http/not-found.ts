import type { Context } from "hono";
import { type AppEnv, requestIdOf } from "./context.js";
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
      .map((r) => ({ method: r.method, re: new RegExp(`^${r.path.replace(/:[^/]+/g, "[^/]+")}$`) }));
    const requestId = requestIdOf(c);
    const path = c.req.path;
    const allowed = [...new Set(compiled.filter((r) => r.re.test(path)).map((r) => r.method))];
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
    // Paths are exact: `/v1/nodes/` is not `/v1/nodes`, but say so when that is the likely slip.
    const bare = path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : undefined;
    const hint = bare && compiled.some((r) => r.re.test(bare)) ? ` (did you mean ${bare}?)` : "";
    return c.json(errorBody("not_found", `no route for ${c.req.method} ${path}${hint}`, requestId), 404);
  };
}
