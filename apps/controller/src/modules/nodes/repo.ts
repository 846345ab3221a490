import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";

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

export async function listNodes(
  db: Kysely<Database>,
  offlineAfterMs: number,
  now = Date.now(),
): Promise<NodeView[]> {
  const rows = await db.selectFrom("nodes").selectAll().orderBy("id").execute();
  return rows.map((r) => {
    const lastSeen = new Date(r.last_seen);
    return {
      id: r.id,
      name: r.name,
      country: r.country,
      region: r.region,
      provider: r.provider,
      status: !r.draining && now - lastSeen.getTime() <= offlineAfterMs ? "online" : "offline",
      last_seen: lastSeen.toISOString(),
      version: r.version,
      capabilities: r.capabilities,
    };
  });
}
