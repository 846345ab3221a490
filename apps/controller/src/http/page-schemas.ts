import { z } from "@hono/zod-openapi";

/**
 * Page query fields and list envelopes of the paginated lists (alert channels, policies and events,
 * invoices): Form A pages with `page` and `limit`, Form B with `page` and `per_page`; both answer
 * `{items, total, page, limit|per_page}`.
 */
const page = z.coerce
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .default(1)
  .openapi({ description: "From 1, default 1" });

/** A page size, 1–100, `fallback` when omitted. */
const size = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(fallback)
    .openapi({ description: `1–100, default ${fallback}` });

export const pageFieldsA = (fallback: number) => ({ page, limit: size(fallback) });
export const pageFieldsB = (fallback: number) => ({ page, per_page: size(fallback) });

export const listA = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  });

export const listB = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    per_page: z.number().int(),
  });
