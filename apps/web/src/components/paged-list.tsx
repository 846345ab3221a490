import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { call, pagePath } from "../api.js";
import { formatNumber } from "../i18n.js";
import { ErrorBox, Loading, useLoad } from "../ui.js";

/** Items a dashboard list asks for at a time unless it says otherwise ("Show more" asks for as many again). */
export const chunk = 50;

/**
 * The first `pages` pages of a paged list of the API at `path` (it may carry a query; `size` items a page,
 * newest first), in one list, and how many there are in all.
 */
export async function loadPages<T>(
  path: string,
  pages: number,
  size: number,
  key: (item: T) => string,
): Promise<{ items: T[]; total: number }> {
  const answers = await Promise.all(
    Array.from({ length: pages }, (_, i) =>
      call<{ items: T[]; total: number }>("GET", pagePath(path, i + 1, size)),
    ),
  );
  // An item added meanwhile shifts the pages: one seen twice is listed once.
  const seen = new Set<string>();
  const items = answers.flatMap((a) => a.items).filter((x) => !seen.has(key(x)) && seen.add(key(x)));
  return { items, total: answers[0]?.total ?? 0 };
}

/** How a list names its items: by `id` unless `key` says otherwise (a list of items without `id` must). */
type KeyOption<T> = T extends { id: string } ? { key?: (item: T) => string } : { key: (item: T) => string };
export type PagedListOptions<T> = KeyOption<T> & {
  /** Items a page (default `chunk`). */
  size?: number;
};

const byId = (item: unknown) => (item as { id: string }).id;

/**
 * A paged list of the API at `path` (a status page's incidents, maintenance or subscribers; the account's
 * probe tasks): the first page, one more on `more()`, reloaded when `deps` change or on `list.reload()`;
 * `remove` deletes one item (`DELETE path/<key>`) and says so in `notice`, or keeps the API's refusal in
 * `error`.
 */
export function usePagedList<T>(
  path: string,
  deps: unknown[] = [],
  ...[opts]: T extends { id: string } ? [PagedListOptions<T>?] : [PagedListOptions<T>]
) {
  const key: (item: T) => string = opts?.key ?? byId;
  const size = opts?.size ?? chunk;
  const [pages, setPages] = useState(1);
  const list = useLoad(() => loadPages<T>(path, pages, size, key), [path, pages, size, ...deps]);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState("");
  async function remove(item: T, removed: string) {
    setError(undefined);
    setNotice("");
    try {
      await call("DELETE", `${path}/${encodeURIComponent(key(item))}`);
      setNotice(removed);
      list.reload();
    } catch (err) {
      setError(err);
    }
  }
  return { list, more: () => setPages((n) => n + 1), error, notice, setNotice, remove };
}

/** The list as `usePagedList` loads it. */
export interface PagedList {
  data?: { items: unknown[]; total: number } | undefined;
  error?: unknown;
  loading: boolean;
  reload: () => void;
}

/** The list's state before its rows: the load's error (with a retry), loading, or `empty`; else `rows()`. */
export function ListBody(props: { list: PagedList; empty: string; rows: () => ComponentChildren }) {
  const { list } = props;
  if (list.error) return <ErrorBox error={list.error} onRetry={list.reload} />;
  if (!list.data) return <Loading />;
  if (list.data.items.length === 0) return <p class="muted">{props.empty}</p>;
  return <>{props.rows()}</>;
}

/**
 * The foot of the list: how many of how many are shown, and a button for the next page; nothing once every
 * item is listed.
 */
export function MoreRows(props: {
  list: PagedList;
  /** The sentence, e.g. "{shown} of {total} incidents shown.", with both numbers formatted. */
  shown: (shown: string, total: string) => string;
  label: string;
  onMore: () => void;
}) {
  const data = props.list.data;
  if (!data || data.items.length >= data.total) return null;
  return (
    <div class="row" style={{ alignItems: "center", marginTop: "6px" }}>
      <span class="muted">{props.shown(formatNumber(data.items.length), formatNumber(data.total))}</span>
      <button type="button" class="secondary" disabled={props.list.loading} onClick={props.onMore}>
        {props.label}
      </button>
    </div>
  );
}
