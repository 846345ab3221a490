import { type Lookup, LookupError } from "../types.js";
import { icpInputSchema } from "./schema.js";

/** PLACEHOLDER while the icp lookup is being built: replaced by the real engine. */
export const icpLookup: Lookup<"icp"> = {
  kind: "icp",
  inputSchema: icpInputSchema,
  run: async () => {
    throw new LookupError("unavailable", "not built yet");
  },
};
