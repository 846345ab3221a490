import {
  isOnline,
  type LiveGroup,
  type LiveNodes,
  type LivePool,
  loadOf,
  type NodeState,
} from "./directory.js";

interface Entry {
  node: NodeState;
  load: number;
  /** The pools holding it. */
  pools: Pool[];
}

const locationOf = (n: NodeState) => `${n.country}\u0000${n.region}\u0000${n.provider}`;

/** Small numbers for the strings of locations, so a pick compares and marks them in arrays. */
class Interned {
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(s, id);
    }
    return id;
  }
}

class Group implements LiveGroup {
  readonly country: string;
  readonly region: string;
  readonly provider: string;
  readonly countryId: number;
  readonly regionId: number;
  readonly providerId: number;
  size = 0;
  /** Where it is in its pool's `list` (while not empty). */
  slot = -1;
  /** `minLoad()`'s answer and its bucket, kept until a member joins or leaves. */
  private min: number | undefined;
  private minBucket: Entry[] | undefined;
  private fresh = false;
  private readonly buckets = new Map<number, Entry[]>();
  private readonly at = new Map<Entry, number>();
  /** A min-heap of the loads with a bucket; a load whose bucket has gone is dropped when it surfaces. */
  private heap: number[] = [];

  constructor(
    sample: NodeState,
    private readonly pool: Pool,
    names: Interned,
  ) {
    this.country = sample.country;
    this.region = sample.region;
    this.provider = sample.provider;
    // One numbering for all three: a pick marks them in one array.
    this.countryId = names.id(`c\u0000${sample.country}`);
    this.regionId = names.id(`r\u0000${sample.region}`);
    this.providerId = names.id(`p\u0000${sample.provider}`);
  }

  add(e: Entry): void {
    this.fresh = false;
    let bucket = this.buckets.get(e.load);
    if (!bucket) {
      bucket = [];
      this.buckets.set(e.load, bucket);
      heapPush(this.heap, e.load);
      // Loads pushed again after their bucket came back: keep the heap within a few times the buckets.
      if (this.heap.length > 2 * this.buckets.size + 16) this.heap = [...this.buckets.keys()].sort(byNumber);
    }
    this.at.set(e, bucket.length);
    bucket.push(e);
    this.size++;
  }

  remove(e: Entry, load: number): void {
    const bucket = this.buckets.get(load);
    const i = this.at.get(e);
    if (!bucket || i === undefined) return;
    this.fresh = false;
    const last = bucket.pop()!;
    if (last !== e) {
      bucket[i] = last;
      this.at.set(last, i);
    }
    this.at.delete(e);
    if (bucket.length === 0) this.buckets.delete(load);
    this.size--;
  }

  minLoad(): number | undefined {
    if (!this.fresh) {
      while (this.heap.length > 0 && !this.buckets.has(this.heap[0]!)) heapPop(this.heap);
      this.min = this.heap[0];
      this.minBucket = this.min === undefined ? undefined : this.buckets.get(this.min);
      this.fresh = true;
    }
    return this.min;
  }

  ties(): number {
    this.minLoad();
    return this.minBucket?.length ?? 0;
  }

  take(): NodeState {
    const min = this.minLoad();
    const bucket = this.minBucket;
    if (min === undefined || !bucket) throw new Error("take() from an exhausted group");
    const e = bucket[Math.floor(Math.random() * bucket.length)]!;
    this.remove(e, min);
    this.pool.took(this, e);
    return e.node;
  }
}

class Pool implements LivePool {
  size = 0;
  readonly byLocation = new Map<string, Group>();
  /** The non-empty groups, in no order (a group leaves by a swap with the last). */
  private readonly list: Group[] = [];
  /** What `take()` removed, in two arrays of the same length `takenCount` (no pair made per take). */
  private readonly takenGroups: Group[] = [];
  private readonly takenEntries: Entry[] = [];
  private takenCount = 0;

  constructor(
    readonly accepts: (n: NodeState) => boolean,
    private readonly names: Interned,
  ) {}

  groups(): readonly LiveGroup[] {
    return this.list;
  }

  add(e: Entry): void {
    const key = locationOf(e.node);
    let g = this.byLocation.get(key);
    if (!g) {
      g = new Group(e.node, this, this.names);
      this.byLocation.set(key, g);
      g.slot = this.list.length;
      this.list.push(g);
    }
    g.add(e);
    this.size++;
  }

  took(g: Group, e: Entry): void {
    this.takenGroups[this.takenCount] = g;
    this.takenEntries[this.takenCount] = e;
    this.takenCount++;
  }

  /** `e` as it was filed: its node's location and `load`. */
  remove(e: Entry, load: number): void {
    const key = locationOf(e.node);
    const g = this.byLocation.get(key);
    if (!g) return;
    g.remove(e, load);
    if (g.size === 0) this.unlist(key, g);
    this.size--;
  }

  private unlist(key: string, g: Group): void {
    this.byLocation.delete(key);
    const last = this.list.pop()!;
    if (last !== g) {
      this.list[g.slot] = last;
      last.slot = g.slot;
    }
    g.slot = -1;
  }

  restore(): void {
    for (let i = 0; i < this.takenCount; i++) this.takenGroups[i]!.add(this.takenEntries[i]!);
    this.takenCount = 0;
  }
}

/**
 * The online nodes, kept up to date one heartbeat, expiry, mark or reservation at a time (issue #34), so
 * picking k nodes never passes over every node: a probe used to copy and group all 10,000 nodes whenever
 * the directory's snapshot had changed, which at 2,000 heartbeats a second was on almost every probe.
 *
 * - The online set is a map in heartbeat order (a heartbeat moves its node to the end), so expiry is a walk
 *   from the front that stops at the first node still fresh: each node expires once, at O(1).
 * - A pool is the online nodes one kind of probe may use (a predicate, e.g. "runs ping and reaches IPv6"),
 *   grouped by location (country, region, provider); made on first use with one pass, then kept up to
 *   date with the set. Each group keeps its members in buckets by load and a heap of the loads, so its
 *   least loaded members (and how many share that load) are at hand.
 *
 * `presence.ts` calls `update` for every change of a node's state and `reload` for its pending jobs.
 */
export class LiveIndex implements LiveNodes {
  /** Online nodes in the order of their `lastSeen` (oldest first) while `ordered`. */
  private readonly online = new Map<string, Entry>();
  private readonly pools = new Map<string, Pool>();
  private readonly names = new Interned();
  private lastSeenMax = Number.NEGATIVE_INFINITY;
  private ordered = true;

  constructor(
    readonly offlineAfterMs: number,
    private readonly known: (id: string) => NodeState | undefined,
    private readonly pending: (id: string) => number,
    readonly ready: () => Promise<void> | undefined,
  ) {}

  get(id: string): NodeState | undefined {
    return this.known(id);
  }

  onlineCount(now = Date.now()): number {
    this.expire(now);
    return this.online.size;
  }

  pool(key: string, accepts: (n: NodeState) => boolean, now = Date.now()): LivePool {
    this.expire(now);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(accepts, this.names);
      for (const e of this.online.values()) {
        if (!accepts(e.node)) continue;
        pool.add(e);
        e.pools.push(pool);
      }
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** The node's state changed (a heartbeat, a mark, a load from the table); `now` judges whether it is online. */
  update(node: NodeState, now = Date.now()): void {
    const old = this.online.get(node.id);
    if (!isOnline(node, this.offlineAfterMs, now)) {
      if (old) this.drop(old);
      return;
    }
    const load = loadOf(node, this.pending(node.id));
    if (old && sameFiling(old.node, node)) {
      // The common heartbeat: the same place in every pool, maybe another load; to the end of the order.
      this.online.delete(node.id);
      this.online.set(node.id, old);
      old.node = node;
      this.setLoad(old, load);
    } else {
      if (old) this.drop(old);
      const e: Entry = { node, load, pools: [] };
      this.online.set(node.id, e);
      for (const pool of this.pools.values()) {
        if (!pool.accepts(node)) continue;
        pool.add(e);
        e.pools.push(pool);
      }
    }
    if (node.lastSeen < this.lastSeenMax) this.ordered = false;
    else this.lastSeenMax = node.lastSeen;
  }

  /** The node's pending jobs changed: its load, not its place in the order. */
  reload(id: string): void {
    const e = this.online.get(id);
    if (e) this.setLoad(e, loadOf(e.node, this.pending(id)));
  }

  private setLoad(e: Entry, load: number): void {
    if (load === e.load) return;
    for (const pool of e.pools) pool.remove(e, e.load);
    e.load = load;
    for (const pool of e.pools) pool.add(e);
  }

  private drop(e: Entry): void {
    for (const pool of e.pools) pool.remove(e, e.load);
    e.pools = [];
    this.online.delete(e.node.id);
  }

  /** Nodes whose heartbeat went stale leave, oldest first, stopping at the first fresh one. */
  private expire(now: number): void {
    if (!this.ordered) {
      // Out of order (nodes loaded from the table after heartbeats, a clock step back): sorted once.
      const all = [...this.online.values()].sort((a, b) => a.node.lastSeen - b.node.lastSeen);
      this.online.clear();
      for (const e of all) this.online.set(e.node.id, e);
      this.ordered = true;
    }
    for (const e of this.online.values()) {
      if (now - e.node.lastSeen <= this.offlineAfterMs) break;
      this.drop(e);
    }
  }
}

/** Whether two states of a node are filed alike: location, network, tags, capabilities (what pools use). */
function sameFiling(a: NodeState, b: NodeState): boolean {
  if (a.country !== b.country || a.region !== b.region || a.provider !== b.provider) return false;
  // Pools by place may key on them too (select-locations.ts).
  if (a.asn !== b.asn || !sameList(a.tags ?? none, b.tags ?? none)) return false;
  return sameList(a.capabilities, b.capabilities);
}

const none: readonly string[] = [];

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const byNumber = (a: number, b: number) => a - b;

function heapPush(heap: number[], x: number): void {
  let i = heap.length;
  heap.push(x);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= x) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = x;
}

function heapPop(heap: number[]): void {
  const last = heap.pop()!;
  if (heap.length === 0) return;
  let i = 0;
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && heap[r]! < heap[l]! ? r : l;
    if (heap[c]! >= last) break;
    heap[i] = heap[c]!;
    i = c;
  }
  heap[i] = last;
}
