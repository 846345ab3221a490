import { type Lookup, LookupError } from "../types.js";
import { ipInputSchema } from "./schema.js";

/** PLACEHOLDER while the ip lookup is being built: replaced by the real engine. */
export const ipLookup: Lookup<"ip"> = {
  kind: "ip",
  inputSchema: ipInputSchema,
  run: async () => {
    throw new LookupError("unavailable", "not built yet");
  },
};
