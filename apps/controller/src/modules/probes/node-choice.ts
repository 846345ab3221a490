import { z } from "@hono/zod-openapi";
import { fieldError } from "../../http/errors.js";
import { MAX_SELECTOR_LENGTH, MAX_SELECTOR_TERMS } from "../nodes/index.js";
import type { ProbeInput } from "./request.js";
import type { LocationEntry } from "./select-locations.js";
import { MAX_NODE_IDS } from "./select-nodes.js";

/** Most `locations` entries in one request. */
export const MAX_LOCATIONS = 10;

const selectorField = z
  .string()
  .min(1)
  .max(MAX_SELECTOR_LENGTH)
  .refine((v) => v.split("+").length <= MAX_SELECTOR_TERMS, `at most ${MAX_SELECTOR_TERMS} terms joined by +`)
  .openapi({
    description:
      "Terms joined by `+`, all of which must match: a country (`DE`, `germany`), a continent (`europe`, " +
      "`EU`), a network (`AS13335`), a region (`eu-central`), a provider (`hetzner`) or a tag (an " +
      "operator's, or a capability: `ipv6`). Case, " +
      "spaces and `-` do not matter. `GET /v1/nodes/selectors` lists what the nodes answer to",
    example: "germany+hetzner",
  });

export const locationsField = z
  .array(
    z.union([
      selectorField,
      z.strictObject({
        selector: selectorField,
        count: z.number().int().min(1).max(MAX_NODE_IDS).optional().openapi({ description: "Default 1" }),
      }),
    ]),
  )
  .min(1)
  .max(MAX_LOCATIONS)
  .refine(
    (list) => list.reduce((s, e) => s + (typeof e === "string" ? 1 : (e.count ?? 1)), 0) <= MAX_NODE_IDS,
    `at most ${MAX_NODE_IDS} nodes in all`,
  )
  .openapi({
    description:
      `Where to probe from, as alternatives (at most ${MAX_LOCATIONS}), each a selector string (one node) ` +
      `or \`{selector, count}\` (1–${MAX_NODE_IDS}, at most ${MAX_NODE_IDS} nodes in all): each entry ` +
      "picks its count of online nodes matching it, spread over countries, regions and providers, least " +
      "loaded first and never a node another entry picked; an entry matching fewer nodes leaves the rest " +
      "unfilled. An unknown term is a 400 naming it. Not with a node id list or `reuse`. " +
      "docs/node-selection.md",
    example: ["DE", { selector: "north-america+aws", count: 2 }],
  });

export const reuseField = z
  .string()
  .regex(/^task_[a-z0-9]{1,40}$/, "a probe task id")
  .openapi({
    description:
      "Run on the nodes of this earlier task (one the caller may read: its own, or an anonymous one); a " +
      "node offline now gets a `node_offline` entry. Not with a node id list or `locations`",
    example: "task_mhb0v3k2x9a1b2c3d4e5f6a7",
  });

/** The fields both forms' probe bodies take for choosing nodes by place or by an earlier task. */
export const nodeChoiceFields = { locations: locationsField.optional(), reuse: reuseField.optional() };

type ChoiceBody = {
  locations?: (string | { selector: string; count?: number | undefined })[] | undefined;
  reuse?: string | undefined;
};

/**
 * Each of a form's body → request functions, with `locations` and `reuse` carried over: `nodesField` is the
 * form's node id list (`node_ids`, `nodes`), which neither goes with.
 */
export function withNodeChoice<T extends Record<string, (b: never) => ProbeInput>>(
  from: T,
  nodesField: string,
): T {
  const out: Record<string, (b: ChoiceBody & Record<string, unknown>) => ProbeInput> = {};
  for (const [type, f] of Object.entries(from)) {
    out[type] = (b) => {
      const input = (f as (b: unknown) => ProbeInput)(b);
      const ids = b[nodesField];
      const given = [
        Array.isArray(ids) && ids.length > 0 ? nodesField : undefined,
        b.locations ? "locations" : undefined,
        b.reuse ? "reuse" : undefined,
      ].filter((x) => x !== undefined);
      if (given.length > 1)
        throw fieldError(`body.${given[1]}`, `not together with ${given[0]}: choose nodes one way`);
      const entries: LocationEntry[] | undefined = b.locations?.map((e) =>
        typeof e === "string" ? { selector: e, count: 1 } : { selector: e.selector, count: e.count ?? 1 },
      );
      return {
        ...input,
        ...(entries ? { locations: { entries, field: "locations" } } : {}),
        ...(b.reuse ? { reuse: b.reuse } : {}),
      };
    };
  }
  return out as unknown as T;
}
