import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { call } from "../../api.js";
import { formatNumber } from "../../i18n.js";
import { ErrorBox, Loading, useLoad } from "../../ui.js";
import { loadPages } from "./status-page-shape.js";

/**
 * A status page's paged list at `path` (its incidents, maintenance or subscribers): the first pages, one
 * more on `more()`, reloaded when `deps` change; `remove` deletes one item and says so in `notice`, or
 * keeps the API's refusal in `error`.
 */
export function usePagedList<T extends { id: string }>(path: string, deps: unknown[] = []) {
  const [pages, setPages] = useState(1);
  const list = useLoad(() => loadPages<T>(path, pages), [path, pages, ...deps]);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState("");
  async function remove(item: T, removed: string) {
    setError(undefined);
    setNotice("");
    try {
      await call("DELETE", `${path}/${encodeURIComponent(item.id)}`);
      setNotice(removed);
      list.reload();
    } catch (err) {
      setError(err);
    }
  }
  return { list, more: () => setPages((n) => n + 1), error, notice, setNotice, remove };
}

type PagedList = ReturnType<typeof usePagedList>["list"];

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
