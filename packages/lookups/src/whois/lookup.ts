import { isIP } from "node:net";
import { startDeadline } from "../net/deadline.js";
import { type Lookup, LookupError } from "../types.js";
import { rdapBaseForDomain, rdapBaseForIp, shippedRdapBootstrap } from "./bootstrap.js";
import { rdapLookup } from "./rdap.js";
import { whoisInputSchema } from "./schema.js";
import { NoWhoisServer, whoisTextLookup } from "./text-lookup.js";

/** The whole lookup (RDAP, the WHOIS fallback and one referral) when the context does not say otherwise. */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Part of the time RDAP may take when it is tried first: a server that hangs still leaves a third for the
 * port-43 fallback.
 */
const RDAP_SHARE = 2 / 3;

/**
 * WHOIS of a domain or an IP address: registrar, expiry, name servers (and for an IP, its network).
 *
 * RDAP first, at the server the bootstrap names (longest TLD suffix; longest IP prefix; https preferred).
 * A 404 there means the registry has no such name or network: `not_found`, without asking port 43. Any
 * other RDAP failure (an error status, a body that is no RDAP object, a refusal, running out of its share of
 * time), or no RDAP server for the TLD or range, falls back to port-43 WHOIS. When that fails too, its
 * error is the lookup's, the RDAP one named in the message. No server anywhere: `not_found`.
 */
export const whoisLookup: Lookup<"whois"> = {
  kind: "whois",
  inputSchema: whoisInputSchema,
  run: async (input, ctx) => {
    const query = input.query;
    const kind = isIP(query) !== 0 ? "ip" : "domain";
    const deadline = startDeadline(ctx, DEFAULT_TIMEOUT_MS);
    try {
      const bootstrap = ctx.whois?.rdapBootstrap ?? shippedRdapBootstrap();
      const base = kind === "ip" ? rdapBaseForIp(bootstrap, query) : rdapBaseForDomain(bootstrap, query);
      let rdapError: LookupError | undefined;
      if (base !== undefined) {
        try {
          return await rdapLookup(kind, query, base, ctx, deadline, RDAP_SHARE);
        } catch (error) {
          if (!(error instanceof LookupError) || error.code === "not_found") throw error;
          rdapError = error;
        }
      }
      try {
        return await whoisTextLookup(kind, query, ctx, deadline);
      } catch (error) {
        if (error instanceof NoWhoisServer) {
          throw (
            rdapError ??
            new LookupError("not_found", `no RDAP or WHOIS server knows ${query}: ${error.message}`)
          );
        }
        if (rdapError && error instanceof LookupError && error.code !== "not_found") {
          throw new LookupError(error.code, `${error.message} (after RDAP: ${rdapError.message})`);
        }
        throw error;
      }
    } finally {
      deadline.stop();
    }
  },
};
