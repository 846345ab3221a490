import { z } from "zod";

export const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

/** The variables marked by `secret()`: their values may hold a credential. */
export const secretSchemas = new WeakSet<z.ZodType>();

/**
 * Marks a variable as secret where it is defined: a bad value is refused with its length only, never
 * shown (it may be a password, a key, or a URL with one in it). Wrap the variable's whole schema.
 */
export function secret<T extends z.ZodType>(schema: T): T {
  secretSchemas.add(schema);
  return schema;
}
