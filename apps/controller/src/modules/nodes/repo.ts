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
}

/** The API view of the known nodes, ordered by id. */
export function toNodeViews(
  nodes: readonly NodeState[],
  offlineAfterMs: number,
  now = Date.now(),
): NodeView[] {
  return [...nodes]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((n) => ({
      id: n.id,
      name: n.name,
      country: n.country,
      region: n.region,
      provider: n.provider,
      status: isOnline(n, offlineAfterMs, now) ? "online" : "offline",
      last_seen: new Date(n.lastSeen).toISOString(),
      version: n.version,
      capabilities: n.capabilities,
    }));
}

/**
 * `GET /v1/nodes` reads the node directory (the presence role's memory, or the `nodes` table cached for a
 * second), never the database per request: under load every request used to queue on the database (PGlite
 * runs one query at a time). The serialised `{"items": …}` is kept until the directory hands out another
 * snapshot (a heartbeat arrived, the table was read again) or the first online node's heartbeat goes
 * stale, whichever comes first, so the answer is the same as building it per request.
 */
export function nodeListJson(directory: NodeDirectory, offlineAfterMs: number): () => Promise<string> {
  let cached: { nodes: readonly NodeState[]; json: string; validUntil: number } | undefined;
  return async () => {
    const nodes = await directory.list();
    const now = Date.now();
    if (cached && cached.nodes === nodes && now <= cached.validUntil) return cached.json;
    let validUntil = Number.POSITIVE_INFINITY;
    for (const n of nodes) {
      // Online until `now - lastSeen > offlineAfterMs`; offline nodes change only with a new snapshot.
      if (isOnline(n, offlineAfterMs, now)) validUntil = Math.min(validUntil, n.lastSeen + offlineAfterMs);
    }
    const json = JSON.stringify({ items: toNodeViews(nodes, offlineAfterMs, now) });
    cached = { nodes, json, validUntil };
    return json;
  };
}
