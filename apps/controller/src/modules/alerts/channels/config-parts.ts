import { z } from "@hono/zod-openapi";

/**
 * An http(s) URL, at most 2048 characters. Any host: whether it may be private is decided when sending
 * (the target guard), since a name can change its address after the config is saved.
 */
export const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).max(2048);

/** A vendor's webhook URL: an http(s) URL whose path ends as the vendor's does, with a query parameter. */
export function vendorUrl(opts: { path: RegExp; param?: string; example: string }) {
  return httpUrl.refine(
    (value) => {
      const url = new URL(value);
      return opts.path.test(url.pathname) && (opts.param === undefined || !!url.searchParams.get(opts.param));
    },
    { error: `must look like ${opts.example}` },
  );
}

/** An E.164 phone number: `+`, country code, subscriber number, 15 digits at most. */
export const e164 = z.string().regex(/^\+[1-9]\d{1,14}$/, "must be an E.164 number such as +14155550100");
