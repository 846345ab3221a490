import { isOnline, type NodeDirectory, type NodeState } from "./directory.js";

export interface NodeView {
  id: string;
  name: string;
  country: string;
  region: string;
  provider: string;
  status: "online" | "offline";
  last_seen: string;
  version: string;
  capabilities: string[];
  public_key: string | null;
}

const byId = (a: NodeState, b: NodeState) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function toView(n: NodeState, online: boolean): NodeView {
  return {
    id: n.id,
    name: n.name,
    country: n.country,
    region: n.region,
    provider: n.provider,
    status: online ? "online" : "offline",
    last_seen: new Date(n.lastSeen).toISOString(),
    version: n.version,
    capabilities: n.capabilities,
    public_key: n.publicKey ?? null,
  };
}

/** The API view of the known nodes, ordered by id. */
export function toNodeViews(
  nodes: readonly NodeState[],
  offlineAfterMs: number,
  now = Date.now(),
): NodeView[] {
  return [...nodes].sort(byId).map((n) => toView(n, isOnline(n, offlineAfterMs, now)));
}

/** What `GET /v1/nodes` may narrow the list by; every field given must match. */
export interface NodeFilter {
  status?: "online" | "offline" | undefined;
  /** Two letters, upper case. */
  country?: string | undefined;
  region?: string | undefined;
  provider?: string | undefined;
}

/** One page: `page` from 1, `size` items, named `sizeField` in the answer (Form A `limit`, Form B `per_page`). */
export interface NodePage {
  page: number;
  size: number;
  sizeField: "limit" | "per_page";
}

/** Filtered lists kept per snapshot; more distinct filters than this start the set afresh. */
const MAX_FILTERS = 256;

/** One directory snapshot in the API's view, valid until `validUntil` (the first online node's expiry). */
interface View {
  snapshot: readonly NodeState[];
  builtAt: number;
  validUntil: number;
  /** The positions in `snapshot` in id order. */
  order: number[];
  /** In id order, as every array below. */
  nodes: NodeState[];
  online: boolean[];
  /** Each node's JSON object, as `toNodeViews` would serialise it. */
  items: string[];
  /** The JSON of each node's fields before `status` (from `{`) and after `last_seen` (to `}`). */
  heads: string[];
  tails: string[];
  full?: string;
  filtered: Map<string, number[]>;
  /** Positions by country, region, provider and status (id order), made on the first filtered request. */
  buckets?: Buckets;
}

interface Buckets {
  country: Map<string, number[]>;
  region: Map<string, number[]>;
  provider: Map<string, number[]>;
  online: number[];
  offline: number[];
}

const none: number[] = [];

function bucketsOf(view: View): Buckets {
  if (view.buckets) return view.buckets;
  const b: Buckets = { country: new Map(), region: new Map(), provider: new Map(), online: [], offline: [] };
  const put = (m: Map<string, number[]>, k: string, i: number) => {
    const list = m.get(k);
    if (list) list.push(i);
    else m.set(k, [i]);
  };
  for (let i = 0; i < view.nodes.length; i++) {
    const n = view.nodes[i]!;
    put(b.country, n.country, i);
    put(b.region, n.region, i);
    put(b.provider, n.provider, i);
    (view.online[i] ? b.online : b.offline).push(i);
  }
  view.buckets = b;
  return b;
}

/**
 * `GET /v1/nodes` as prepared JSON text of the `data` object, from the node directory (in memory, fed by
 * heartbeats), never the database per request: under load every
 * request used to queue on the database (PGlite runs one query at a time), and with 10,000 nodes building
 * and serialising the list per request (2.3 MB) took the whole controller. Now:
 * - the list in id order, each node's status and JSON object, and the default answer `{"items": […]}`
 *   (joined from those objects) are kept until the directory hands out another snapshot or the first online
 *   node's heartbeat goes stale, whichever comes first, so every answer is the one building it per request
 *   would give;
 * - the next snapshot reuses what did not change: the id order when the nodes are the same (the presence
 *   role's directory keeps them in one order), a node's JSON object when its state object and status are
 *   the same, and otherwise the parts of it around `status` and `last_seen` when only those changed, which
 *   is all a heartbeat changes;
 * - a filter's matches are kept with that list; a page is a slice of them.
 */
export class NodeList {
  private view: View | undefined;

  constructor(
    private readonly directory: NodeDirectory,
    private readonly offlineAfterMs: number,
  ) {}

  /** The whole list's JSON as `json()` gives it, when the directory has it at hand (`peek`); else undefined. */
  peekJson(): string | undefined {
    const snapshot = this.directory.peek?.();
    if (!snapshot) return undefined;
    const view = this.current(snapshot);
    view.full ??= `{"items":[${view.items.join(",")}]}`;
    return view.full;
  }

  /** The `data` object's JSON: `{"items":[…]}`, or with a page `{"items":[…],"total":…,"page":…,<size>:…}`. */
  async json(filter?: NodeFilter, page?: NodePage): Promise<string> {
    const view = this.current(await this.directory.list());
    if (!page && !hasFilter(filter)) {
      view.full ??= `{"items":[${view.items.join(",")}]}`;
      return view.full;
    }
    const matches = this.matches(view, filter ?? {});
    if (!page) return `{"items":[${matches.map((i) => view.items[i]).join(",")}]}`;
    const from = (page.page - 1) * page.size;
    const slice = matches.slice(from, from + page.size).map((i) => view.items[i]);
    return (
      `{"items":[${slice.join(",")}],"total":${matches.length},"page":${page.page},` +
      `"${page.sizeField}":${page.size}}`
    );
  }

  private current(snapshot: readonly NodeState[]): View {
    const now = Date.now();
    const prev = this.view;
    if (prev && prev.snapshot === snapshot && now >= prev.builtAt && now <= prev.validUntil) return prev;
    const sameOrder = prev !== undefined && sameIds(prev.snapshot, snapshot);
    const order = sameOrder ? prev.order : idOrder(snapshot);
    // Where each id was in the previous view: the same place when the order is the same.
    const before = prev && !sameOrder ? new Map(prev.nodes.map((n, i) => [n.id, i])) : undefined;
    const count = order.length;
    const nodes: NodeState[] = new Array(count);
    const online: boolean[] = new Array(count);
    const items: string[] = new Array(count);
    const heads: string[] = new Array(count);
    const tails: string[] = new Array(count);
    let validUntil = Number.POSITIVE_INFINITY;
    for (let i = 0; i < count; i++) {
      const n = snapshot[order[i]!]!;
      const on = isOnline(n, this.offlineAfterMs, now);
      // Online until `now - lastSeen > offlineAfterMs`; offline nodes change only with a new snapshot.
      if (on) validUntil = Math.min(validUntil, n.lastSeen + this.offlineAfterMs);
      nodes[i] = n;
      online[i] = on;
      const j = prev ? (sameOrder ? i : before?.get(n.id)) : undefined;
      const p = j === undefined ? undefined : prev?.nodes[j];
      if (p !== undefined && j !== undefined && prev) {
        if (p === n && prev.online[j] === on) {
          items[i] = prev.items[j]!;
          heads[i] = prev.heads[j]!;
          tails[i] = prev.tails[j]!;
          continue;
        }
        if (sameFixedFields(p, n)) {
          heads[i] = prev.heads[j]!;
          tails[i] = prev.tails[j]!;
        }
      }
      heads[i] ??= headJson(n);
      tails[i] ??= tailJson(n);
      items[i] =
        `${heads[i]}"status":"${on ? "online" : "offline"}",` +
        `"last_seen":"${new Date(n.lastSeen).toISOString()}",${tails[i]}`;
    }
    this.view = {
      snapshot,
      builtAt: now,
      validUntil,
      order,
      nodes,
      online,
      items,
      heads,
      tails,
      filtered: new Map(),
    };
    return this.view;
  }

  /** Indices (into the view's id order) of the nodes matching `filter`. */
  private matches(view: View, filter: NodeFilter): number[] {
    const key = `${filter.status ?? ""}\u0000${filter.country ?? ""}\u0000${filter.region ?? ""}\u0000${filter.provider ?? ""}`;
    let found = view.filtered.get(key);
    if (found) return found;
    found = [];
    const wantOnline = filter.status === undefined ? undefined : filter.status === "online";
    // The smallest of the buckets the filter names (each in id order), then the other fields checked on it:
    // a filter costs the nodes of its narrowest field, not a pass over every node.
    const b = bucketsOf(view);
    const named: (number[] | undefined)[] = [];
    if (filter.country !== undefined) named.push(b.country.get(filter.country));
    if (filter.region !== undefined) named.push(b.region.get(filter.region));
    if (filter.provider !== undefined) named.push(b.provider.get(filter.provider));
    if (wantOnline !== undefined) named.push(wantOnline ? b.online : b.offline);
    let candidates: number[] | undefined;
    for (const list of named)
      if (!candidates || (list ?? none).length < candidates.length) candidates = list ?? none;
    // No field named (a page of every node): all of them, in id order.
    candidates ??= view.nodes.map((_, i) => i);
    for (const i of candidates) {
      const n = view.nodes[i]!;
      if (wantOnline !== undefined && view.online[i] !== wantOnline) continue;
      if (filter.country !== undefined && n.country !== filter.country) continue;
      if (filter.region !== undefined && n.region !== filter.region) continue;
      if (filter.provider !== undefined && n.provider !== filter.provider) continue;
      found.push(i);
    }
    if (view.filtered.size >= MAX_FILTERS) view.filtered.clear();
    view.filtered.set(key, found);
    return found;
  }
}

/** A node's JSON object up to `status` (the fields `toView` puts first), from `{`. */
function headJson(n: NodeState): string {
  const s = JSON.stringify;
  return (
    `{"id":${s(n.id)},"name":${s(n.name)},"country":${s(n.country)},"region":${s(n.region)},` +
    `"provider":${s(n.provider)},`
  );
}

/** A node's JSON object after `last_seen`, to `}`. */
function tailJson(n: NodeState): string {
  return (
    `"version":${JSON.stringify(n.version)},"capabilities":${JSON.stringify(n.capabilities)},` +
    `"public_key":${JSON.stringify(n.publicKey ?? null)}}`
  );
}

/** Whether two states of a node serialise alike but for `status` and `last_seen`. */
function sameFixedFields(a: NodeState, b: NodeState): boolean {
  return (
    a.name === b.name &&
    a.country === b.country &&
    a.region === b.region &&
    a.provider === b.provider &&
    a.version === b.version &&
    a.publicKey === b.publicKey &&
    (a.capabilities === b.capabilities ||
      (a.capabilities.length === b.capabilities.length &&
        a.capabilities.every((c, i) => c === b.capabilities[i])))
  );
}

function sameIds(a: readonly NodeState[], b: readonly NodeState[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id) return false;
  return true;
}

/** The positions of `nodes` in id order. */
function idOrder(nodes: readonly NodeState[]): number[] {
  return nodes.map((_, i) => i).sort((x, y) => byId(nodes[x]!, nodes[y]!));
}

function hasFilter(f: NodeFilter | undefined): boolean {
  return (
    f !== undefined &&
    (f.status !== undefined || f.country !== undefined || f.region !== undefined || f.provider !== undefined)
  );
}
