import { useEffect, useState } from "preact/hooks";

/**
 * Hash routes (`#/monitors/mon_…`): the controller serves one page, links are shareable, and the back
 * button works without server routes. `useRoute()` re-renders on every change.
 */
export interface Route {
  path: string;
  /** `:name` parts of the matched pattern. */
  params: Record<string, string>;
  /** `?a=b` after the hash path. */
  query: URLSearchParams;
}

function current(): { path: string; query: URLSearchParams } {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path = "/", q = ""] = hash.split("?");
  return { path, query: new URLSearchParams(q) };
}

export function navigate(to: string): void {
  location.hash = to.startsWith("#") ? to : `#${to}`;
}

/** `pattern` like `/tasks/:id`; the params when `path` matches. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const a = pattern.split("/").filter(Boolean);
  const b = path.split("/").filter(Boolean);
  if (a.length !== b.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.startsWith(":")) params[a[i]!.slice(1)] = decodeURIComponent(b[i]!);
    else if (a[i] !== b[i]) return undefined;
  }
  return params;
}

export function usePath(): { path: string; query: URLSearchParams } {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const on = () => setLoc(current());
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return loc;
}
