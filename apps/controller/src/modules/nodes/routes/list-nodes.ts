import { createRoute, z } from "@hono/zod-openapi";
import { envelope } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";

export const nodeSchema = z
  .object({
    id: z.string().openapi({ example: "fra1" }),
    name: z.string().openapi({ example: "Frankfurt 1" }),
    country: z.string().length(2).openapi({ example: "DE" }),
    region: z.string().openapi({ example: "eu-central" }),
    provider: z.string().openapi({ example: "hetzner" }),
    status: z.enum(["online", "offline"]).openapi({
      description:
        "`online` while heartbeats are fresh (VANTAGE_NODE_OFFLINE_AFTER_MS), the agent is not draining, and " +
        "no probe has found it unreachable (no agent serving its jobs) since its last heartbeat",
    }),
    last_seen: z.string().openapi({ description: "ISO 8601 UTC time of the last heartbeat" }),
    version: z.string().openapi({ description: "Agent software version" }),
    capabilities: z.array(z.string()).openapi({ description: "e.g. ipv4, ipv6, icmp" }),
  })
  .openapi("Node");

const listNodesRoute = createRoute({
  method: "get",
  path: "/v1/nodes",
  tags: ["nodes"],
  summary: "List probe nodes with their region, provider and online status",
  responses: {
    200: {
      description: "Every node that has ever sent a heartbeat",
      content: { "application/json": { schema: envelope(z.object({ items: z.array(nodeSchema) })) } },
    },
  },
});

/**
 * `GET /v1/nodes`: the cached JSON of `{items}` (see `nodeListJson`) inside the envelope, as `ok()` would
 * build it. The handler sends prepared text, so the route is documented from its definition and served by a
 * plain handler (nothing to validate on the way in).
 */
export function registerListNodes(app: Router, itemsJson: () => Promise<string>): void {
  app.openAPIRegistry.registerPath(listNodesRoute);
  app.get(listNodesRoute.path, async (c) => {
    const data = await itemsJson();
    const body = `{"data":${data},"request_id":${JSON.stringify(c.get("requestId"))}}`;
    return c.body(body, 200, { "Content-Type": "application/json" });
  });
}
