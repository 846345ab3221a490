import { formatNumber } from "../../i18n.js";

/**
 * The foot of a status page's paged list (incidents, maintenance, subscribers): how many of how many are
 * shown, and a button for the next page; nothing once every item is listed.
 */
export function MoreRows(props: {
  list: { data?: { items: unknown[]; total: number } | undefined; loading: boolean };
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
