import { type Lookup, type LookupContext, LookupError } from "../types.js";
import { askProvider, type ProviderAnswer } from "./provider.js";
import { type IcpOptions, type IcpResult, icpInputSchema, icpResultSchema } from "./schema.js";
import { type Attempt, type HomePage, readHomePage } from "./site-footer.js";

/** The whole chain, provider and every home-page URL included, when the context does not say otherwise. */
const DEFAULT_TIMEOUT_MS = 12_000;

/**
 * The mainland-China ICP registration (备案) of a domain, from the first source that answers:
 * 1. the third-party provider, when configured → `source: provider`, `verified: true`; its definite "no
 *    registration" is an answer too (`status: not_found`);
 * 2. the site's home page → `source: site_footer`, `verified: false`: the number it shows (`unverified`),
 *    or `not_found` when a page of the site was read and shows none;
 * 3. the cache of earlier live answers → `source: cache`, the original `origin` and `checked_at`.
 * No registration is an answer (200), not an error: empty `icp_number`/`company`/`license_type`,
 * `status: not_found`. Nothing is ever inferred from the TLD or the hosting. When no source answers:
 * `unavailable` (503) naming each one tried, or `target_not_allowed` when the guard refused every try.
 */
export const icpLookup: Lookup<"icp"> = {
  kind: "icp",
  inputSchema: icpInputSchema,
  run: async ({ domain }, ctx) => {
    const options = ctx.icp ?? {};
    const endsAt = performance.now() + (ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const remaining = () => Math.max(0, Math.round(endsAt - performance.now()));
    const checkedAt = () => (ctx.now?.() ?? new Date()).toISOString();
    const attempts: Attempt[] = [];

    if (options.provider) {
      try {
        const answer = await askProvider(domain, options.provider, ctx, remaining());
        return await remember(options, fromProvider(domain, answer, checkedAt()));
      } catch (error) {
        if (!(error instanceof LookupError)) throw error;
        attempts.push({ what: "provider", code: error.code, message: error.message });
      }
    } else {
      attempts.push({ what: "provider", code: "skipped", message: "not configured" });
    }

    const home = await readHomePage(domain, options, ctx, remaining);
    if ("page" in home) return await remember(options, fromHomePage(domain, home.page, checkedAt()));
    attempts.push(...home.attempts);

    stoppedByCaller(ctx);
    const cached = await fromCache(domain, options, attempts);
    if (cached) return cached;
    throw noAnswer(domain, attempts);
  },
};

function fromProvider(domain: string, answer: ProviderAnswer, checkedAt: string): IcpResult {
  if (!answer.registered) return empty(domain, "provider", true, "", checkedAt);
  return {
    domain,
    icp_number: answer.number.icp_number,
    company: answer.company,
    license_type: answer.number.license_type,
    main_licence: answer.number.main_licence,
    nature: answer.nature,
    status: "found",
    source: "provider",
    origin: "provider",
    verified: true,
    page_url: "",
    checked_at: checkedAt,
  };
}

/**
 * The first number the page shows (sites showing a 证 licence and a 备 filing list them in the order they
 * chose). A page without one says the site is very likely not registered, but that is unverified too.
 */
function fromHomePage(domain: string, page: HomePage, checkedAt: string): IcpResult {
  const first = page.numbers[0];
  if (!first) return empty(domain, "site_footer", false, page.url, checkedAt);
  return {
    domain,
    icp_number: first.icp_number,
    // A footer never names the registrant: left empty rather than guessed from the page.
    company: "",
    license_type: first.license_type,
    main_licence: first.main_licence,
    nature: "",
    status: "unverified",
    source: "site_footer",
    origin: "site_footer",
    verified: false,
    page_url: page.url,
    checked_at: checkedAt,
  };
}

function empty(
  domain: string,
  source: "provider" | "site_footer",
  verified: boolean,
  pageUrl: string,
  checkedAt: string,
): IcpResult {
  return {
    domain,
    icp_number: "",
    company: "",
    license_type: "",
    main_licence: "",
    nature: "",
    status: "not_found",
    source,
    origin: source,
    verified,
    page_url: pageUrl,
    checked_at: checkedAt,
  };
}

/** Every live answer is kept; a cache that fails to keep it must not cost the caller the answer. */
async function remember(options: IcpOptions, result: IcpResult): Promise<IcpResult> {
  try {
    await options.cache?.put(result);
  } catch {
    // The next failing lookup will find nothing cached: that is all a lost write costs.
  }
  return result;
}

/** An earlier answer for `domain`, if the cache holds a well-formed one; its failure is one more attempt. */
async function fromCache(
  domain: string,
  options: IcpOptions,
  attempts: Attempt[],
): Promise<IcpResult | undefined> {
  if (!options.cache) {
    attempts.push({ what: "cache", code: "skipped", message: "not configured" });
    return undefined;
  }
  let stored: unknown;
  try {
    stored = await options.cache.get(domain);
  } catch (error) {
    attempts.push({ what: "cache", code: "unavailable", message: `failed: ${String(error)}` });
    return undefined;
  }
  const parsed = icpResultSchema.safeParse(stored);
  if (!parsed.success || parsed.data.domain !== domain) {
    const message = stored === undefined ? "nothing cached" : "cached entry is malformed";
    attempts.push({ what: "cache", code: "skipped", message });
    return undefined;
  }
  return { ...parsed.data, source: "cache" };
}

function stoppedByCaller(ctx: LookupContext): void {
  if (ctx.signal?.aborted)
    throw new LookupError("upstream_timeout", "the lookup was stopped before an answer came");
}

/** Refused by the guard on every try (and nothing else tried) → 422; otherwise the sources are down → 503. */
function noAnswer(domain: string, attempts: Attempt[]): LookupError {
  const tried = attempts.filter((a) => a.code !== "skipped");
  const detail = attempts.map((a) => `${a.what}: ${a.message}`).join("; ");
  if (tried.length > 0 && tried.every((a) => a.code === "target_not_allowed")) {
    return new LookupError("target_not_allowed", `no ICP source could answer for ${domain}: ${detail}`);
  }
  return new LookupError("unavailable", `no ICP source could answer for ${domain}: ${detail}`);
}
