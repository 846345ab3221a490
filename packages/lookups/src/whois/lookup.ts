import { type Lookup, LookupError } from "../types.js";
import { whoisInputSchema } from "./schema.js";

/** PLACEHOLDER while the whois lookup is being built: replaced by the real engine. */
export const whoisLookup: Lookup<"whois"> = {
  kind: "whois",
  inputSchema: whoisInputSchema,
  run: async () => {
    throw new LookupError("unavailable", "not built yet");
  },
};
