import { type Lookup, LookupError } from "../types.js";
import { sslInputSchema } from "./schema.js";

/** PLACEHOLDER while the ssl lookup is being built: replaced by the real engine. */
export const sslLookup: Lookup<"ssl"> = {
  kind: "ssl",
  inputSchema: sslInputSchema,
  run: async () => {
    throw new LookupError("unavailable", "not built yet");
  },
};
