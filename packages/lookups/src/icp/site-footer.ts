import { guardedRequest } from "../net/guarded-http.js";
import { type LookupContext, LookupError, type LookupErrorCode } from "../types.js";
import { decodePage } from "./decode-page.js";
import { type IcpNumber, parseIcpNumbers } from "./icp-number.js";
import type { IcpOptions } from "./schema.js";

/*
 * Mainland sites must show their number in the footer, linked to beian.miit.gov.cn. Reading it is the site's
 * own claim, never checked against MIIT: the lookup reports it as unverified. The page is fetched through the
 * target guard (the domain is the caller's choice), certificates unchecked (we read, we do not vouch).
 */

const DEFAULT_TIMEOUT_MS = 5000;
/** Footers sit at the end of the page, but past this the page is not a home page worth reading. */
const MAX_BYTES = 512 * 1024;
const MAX_REDIRECTS = 3;

export interface HomePage {
  /** The page read, after redirects. */
  url: string;
  /** Every number it shows, in page order. */
  numbers: IcpNumber[];
}

/** One source that could not answer, for the final message (and to tell a refused target). */
export interface Attempt {
  what: string;
  code: LookupErrorCode | "skipped";
  message: string;
}

export function defaultHomePageUrls(domain: string): string[] {
  const hosts = domain.startsWith("www.") ? [domain] : [domain, `www.${domain}`];
  return hosts.flatMap((h) => [`https://${h}/`, `http://${h}/`]);
}

/**
 * The first home-page URL that answers 2xx on this site decides (with or without a number); the others are
 * tried only when it cannot be reached, answers an error, or redirects to another site (whose footer
 * would be that site's number).
 */
export async function readHomePage(
  domain: string,
  options: IcpOptions,
  ctx: Pick<LookupContext, "allowPrivate" | "signal" | "lookup">,
  remainingMs: () => number,
): Promise<{ page: HomePage } | { attempts: Attempt[] }> {
  const attempts: Attempt[] = [];
  for (const url of (options.homePageUrls ?? defaultHomePageUrls)(domain)) {
    const what = `home page ${url}`;
    const timeoutMs = Math.min(options.homePageTimeoutMs ?? DEFAULT_TIMEOUT_MS, remainingMs());
    if (timeoutMs <= 0 || ctx.signal?.aborted) {
      attempts.push({ what, code: "skipped", message: "no time left" });
      continue;
    }
    try {
      const res = await guardedRequest(
        url,
        {
          timeoutMs,
          maxBytes: MAX_BYTES,
          maxRedirects: MAX_REDIRECTS,
          insecureTls: true,
          headers: { accept: "text/html,*/*;q=0.5", "accept-language": "zh-CN,zh;q=0.9,en;q=0.5" },
        },
        ctx,
      );
      if (res.status < 200 || res.status > 299) {
        attempts.push({ what, code: "upstream_error", message: `HTTP ${res.status} from ${res.url}` });
        continue;
      }
      const host = new URL(res.url).hostname;
      if (!sameSite(host, domain)) {
        attempts.push({ what, code: "upstream_error", message: `redirected to another site: ${res.url}` });
        continue;
      }
      const contentType = res.headers["content-type"];
      return { page: { url: res.url, numbers: parseIcpNumbers(decodePage(res.body, contentType)) } };
    } catch (error) {
      if (!(error instanceof LookupError)) throw error;
      attempts.push({ what, code: error.code, message: error.message });
    }
  }
  return { attempts };
}

/** `www.d` and `d` are one site; so is any name under `d` (a home page on `m.d` still shows d's number). */
function sameSite(host: string, domain: string): boolean {
  const strip = (h: string) =>
    h
      .toLowerCase()
      .replace(/\.$/, "")
      .replace(/^www\./, "");
  const h = strip(host);
  const d = strip(domain);
  return h === d || h.endsWith(`.${d}`) || d.endsWith(`.${h}`);
}
